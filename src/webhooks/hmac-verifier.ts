/**
 * `hmacSha256Verifier({ secret })`: the signature check of the common `sha256=<hex>` header form
 * (GitHub's `X-Hub-Signature-256`, and many others'), for `createWebhookHandler({ verify })`. The
 * HMAC-SHA256 of the raw body, compared in constant time.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { WebhookOptionsError } from "./errors.js";

/** Options of `hmacSha256Verifier()`. */
export interface HmacVerifierOptions {
  /** The shared secret; several while rotating it (a signature by any of them verifies). */
  secret: string | string[];
  /** The header holding the signature (default `x-hub-signature-256`). */
  header?: string;
  /** What comes before the hex digest in the header (default `sha256=`; `""` for a bare digest). */
  prefix?: string;
}

/** The `sha256=<hex>` HMAC of `body` under `secret`, as the sender writes it. */
export function hmacSha256Signature(secret: string, body: string | Uint8Array, prefix = "sha256="): string {
  return `${prefix}${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** A `verify` for `createWebhookHandler()`: true when the header holds the HMAC-SHA256 of the request's raw body under one of the secrets. */
export function hmacSha256Verifier(options: HmacVerifierOptions): (request: Request) => Promise<boolean> {
  const secrets = Array.isArray(options.secret) ? options.secret : [options.secret];
  if (secrets.length === 0 || secrets.some((secret) => typeof secret !== "string" || secret === ""))
    throw new WebhookOptionsError(
      "secret",
      "give the shared secret as a non-empty string (or several, while rotating it)",
    );
  const header = options.header ?? "x-hub-signature-256";
  const prefix = options.prefix ?? "sha256=";
  return async (request) => {
    const given = request.headers.get(header);
    if (!given?.startsWith(prefix)) return false;
    const digest = Buffer.from(given.slice(prefix.length), "hex");
    if (digest.length !== 32) return false; // not 64 hex digits
    const body = new Uint8Array(await request.arrayBuffer());
    return secrets.some((secret) => timingSafeEqual(createHmac("sha256", secret).update(body).digest(), digest));
  };
}
