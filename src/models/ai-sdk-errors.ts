/**
 * Worker-side: the errors of an AI SDK model call, as the model error table reads them. The AI
 * SDK's own errors (`APICallError`, `LoadAPIKeyError`, ...) are recognised by their name and
 * their `Symbol.for("vercel.ai.error.<name>")` marker, as the AI SDK's `isInstance` does, since
 * the library does not import `ai` or `@ai-sdk/provider`. The classes here are raised by the AI
 * SDK path itself: the answer's stream ended early, or finished in a way the run cannot use.
 */
import { namedErrorGuard } from "../core/error-guard.js";

/** The fields of the AI SDK's `APICallError` the table reads. */
export interface AiSdkApiCallError extends Error {
  statusCode?: number;
  isRetryable: boolean;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
}

/** Whether `error` is the AI SDK error of that name (e.g. `AI_APICallError`), from any copy of the package. */
export function isAiSdkError(error: unknown, name: string): error is Error {
  if (typeof error !== "object" || error === null) return false;
  const marker = Symbol.for(`vercel.ai.error.${name}`);
  return (error as { name?: unknown }).name === name && (error as Record<symbol, unknown>)[marker] === true;
}

/** Whether `error` is any of the AI SDK's own errors (its `Symbol.for("vercel.ai.error")` marker). */
export function isAnyAiSdkError(error: unknown): error is Error {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as Record<symbol, unknown>)[Symbol.for("vercel.ai.error")] === true
  );
}

/** Whether `error` is the AI SDK's `APICallError` (an HTTP call to the provider failed). */
export function isApiCallError(error: unknown): error is AiSdkApiCallError {
  return isAiSdkError(error, "AI_APICallError");
}

/** The answer's stream ended before the provider said it finished (a connection cut mid-answer); retried. */
export class StreamCutError extends Error {
  override name = "StreamCutError";
  /** True for a `StreamCutError`, by its literal name (kept by minifiers). */
  static isInstance = namedErrorGuard<StreamCutError>("StreamCutError");
  constructor(readonly detail: string) {
    super(`the answer's stream ended before it finished (${detail})`);
  }
}

/** The HTTP status a provider's error type stands for (Anthropic's and OpenAI's names), for an error sent mid-stream. */
const STATUS_OF_KIND: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  api_error: 500,
  server_error: 500,
  overloaded_error: 529,
};

/**
 * An error the provider sent inside the answer's stream (after its 200), as the stream's `error`
 * part carried it: e.g. Anthropic's `{ type: "overloaded_error", message }`. `kind` is its type or
 * code, `status` the HTTP status that type stands for, `detail` the provider's own message.
 */
export class ProviderStreamError extends Error {
  override name = "ProviderStreamError";
  /** True for a `ProviderStreamError`, by its literal name (kept by minifiers). */
  static isInstance = namedErrorGuard<ProviderStreamError>("ProviderStreamError");
  readonly kind: string | undefined;
  readonly status: number | undefined;
  readonly detail: string;
  constructor(readonly error: unknown) {
    const fields = (typeof error === "object" && error !== null ? error : {}) as {
      type?: unknown;
      code?: unknown;
      message?: unknown;
      error?: { type?: unknown; code?: unknown; message?: unknown };
    };
    const said = fields.error?.message ?? fields.message;
    const detail = typeof said === "string" && said !== "" ? said : describeStreamError(error);
    super(`the provider sent an error mid-answer: ${detail}`, { cause: error instanceof Error ? error : undefined });
    this.detail = detail;
    const kind =
      fields.error?.type ?? fields.error?.code ?? (fields.type === "error" ? undefined : fields.type) ?? fields.code;
    this.kind = typeof kind === "string" || typeof kind === "number" ? String(kind) : undefined;
    this.status =
      this.kind === undefined
        ? undefined
        : (STATUS_OF_KIND[this.kind] ?? (/^\d{3}$/.test(this.kind) ? Number(this.kind) : undefined));
  }
}

/** The provider stopped the answer with its content filter; the same request ends the same way. */
export class ContentFilterError extends Error {
  override name = "ContentFilterError";
  /** True for a `ContentFilterError`, by its literal name (kept by minifiers). */
  static isInstance = namedErrorGuard<ContentFilterError>("ContentFilterError");
  constructor(raw: string | undefined) {
    super(`the provider's content filter stopped the answer${raw ? ` (finish reason ${JSON.stringify(raw)})` : ""}`);
  }
}

function describeStreamError(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error).slice(0, 500);
  } catch {
    return String(error);
  }
}

/** Anthropic's error types (and the like) that retrying cannot fix, as a stream's error part names them. */
export const PERMANENT_STREAM_ERRORS = new Set([
  "invalid_request_error",
  "authentication_error",
  "permission_error",
  "not_found_error",
  "request_too_large",
  "400",
  "401",
  "403",
  "404",
  "422",
]);
