/** Helpers for the codec tests: keys, and every payload of a history. */
import { randomBytes } from "node:crypto";
import type { Payload } from "@temporalio/common";
import { historyToJSON } from "@temporalio/common/lib/proto-utils.js";
import type { temporal } from "@temporalio/proto";
import { parseCodecKeys, type CodecKeyring } from "../../src/index.js";

/** A fresh random 256-bit key, base64. */
export function newKey(): string {
  return randomBytes(32).toString("base64");
}

/** A keyring like `DURABLE_AGENT_CODEC_KEYS` would give. */
export function keyring(keys: Record<string, string>, encryptKeyId: string): CodecKeyring {
  return parseCodecKeys(
    Object.entries(keys)
      .map(([id, key]) => `${id}:${key}`)
      .join(","),
    encryptKeyId,
  );
}

/** Every payload in a history, as stored on the server, with where it was found. */
export function payloadsOf(history: temporal.api.history.v1.IHistory): Array<{ path: string; payload: Payload }> {
  const found: Array<{ path: string; payload: Payload }> = [];
  const walk = (value: unknown, path: string) => {
    if (Array.isArray(value)) return value.forEach((item, i) => walk(item, `${path}[${i}]`));
    if (typeof value !== "object" || value === null) return;
    const record = value as Record<string, unknown>;
    if (typeof record.metadata === "object" && record.metadata !== null && "encoding" in (record.metadata as object)) {
      const metadata = Object.fromEntries(
        Object.entries(record.metadata as Record<string, string>).map(([k, v]) => [
          k,
          new Uint8Array(Buffer.from(v, "base64")),
        ]),
      );
      found.push({
        path,
        payload: { metadata, data: new Uint8Array(Buffer.from((record.data as string) ?? "", "base64")) },
      });
      return;
    }
    for (const [key, child] of Object.entries(record)) walk(child, path ? `${path}.${key}` : key);
  };
  walk(JSON.parse(historyToJSON(history)), "");
  return found;
}

/** A metadata value as text. */
export function meta(payload: Payload, key: string): string | undefined {
  const value = payload.metadata?.[key];
  return value ? Buffer.from(value).toString("utf8") : undefined;
}

/** The history's payload data, decoded from base64 to text: what someone reading the server's database sees. */
export function storedText(history: temporal.api.history.v1.IHistory): string {
  return historyToJSON(history).replace(/"data":\s*"([A-Za-z0-9+/=]+)"/g, (_m: string, data: string) =>
    Buffer.from(data, "base64").toString("utf8"),
  );
}
