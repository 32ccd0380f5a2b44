/**
 * Worker-side, pure: every error a model call can end with, classified once, in one table.
 *
 * `permanent` fails the run at once: retrying sends the same request to the same server and gets
 * the same answer (a 400/401/403/404/422, an answer that fails `validateAnswer`, the limits, a
 * setting the worker cannot use). `transient` is retried by Temporal with the model call's backoff,
 * and the next attempt marks the run's stream with `trip.retry`. An error no row matches is
 * transient: a run is worth more than an attempt.
 *
 * Rows are tried in order; the first that matches decides. The errors come from the `openai`
 * client (v6: `APIError` and its status subclasses, `APIConnectionError`, the stream helpers'
 * `OpenAIError`s), from AI SDK provider packages (`APICallError` with its `statusCode`,
 * `isRetryable` and response headers, `LoadAPIKeyError`, an error part inside the answer's
 * stream; recognised by name and marker, as the library does not import `ai`) and from undici
 * under Node's `fetch` (`TypeError: fetch failed` before a response, `TypeError: terminated` while
 * reading one, each with the socket error as `cause`).
 */
import OpenAI from "openai";
import { ContentFilterFinishReasonError, LengthFinishReasonError } from "openai/error";
import {
  AgentOptionsError,
  DurableAgentError,
  LoadAPIKeyError,
  ModelApiError,
  PayloadTooLargeError,
  TooManyToolCallsError,
} from "../errors.js";
import { NotAnEventStreamError } from "./chat-stream.js";
import {
  ContentFilterError,
  isAiSdkError,
  isApiCallError,
  PERMANENT_STREAM_ERRORS,
  ProviderStreamError,
  StreamCutError,
} from "./ai-sdk-errors.js";

/** Whether retrying can fix an error. */
export type ModelFault = "permanent" | "transient";

/** One row of the table. */
export interface ModelErrorRow {
  /** The error, as the tests and docs/models-and-errors.md name it. */
  readonly error: string;
  readonly fault: ModelFault;
  /** Why it is classified so. */
  readonly why: string;
  /** Honour the server's `Retry-After` / `retry-after-ms` for the next attempt. */
  readonly retryAfter?: boolean;
  readonly matches: (error: unknown) => boolean;
}

/** The errors of one failure, outermost first, following `cause`. */
export function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (
    let current = error;
    current !== undefined && current !== null && chain.length < 8;
    current = (current as { cause?: unknown }).cause
  ) {
    chain.push(current);
  }
  return chain;
}

const codesOf = (error: unknown): string[] =>
  causeChain(error)
    .map((e) => (e as { code?: unknown })?.code)
    .filter((code): code is string => typeof code === "string");
const hasCode = (pattern: RegExp) => (error: unknown) => codesOf(error).some((code) => pattern.test(code));
const messageIn = (pattern: RegExp) => (error: unknown) =>
  causeChain(error).some((e) => e instanceof Error && pattern.test(e.message));
const status = (code: number) => (error: unknown) => error instanceof OpenAI.APIError && error.status === code;
/** An `OpenAIError` raised by the client's stream helpers (not an HTTP status error). */
const streamHelper = (pattern: RegExp) => (error: unknown) =>
  error instanceof OpenAI.OpenAIError && !(error instanceof OpenAI.APIError) && pattern.test(error.message);
const connection = (error: unknown) => error instanceof OpenAI.APIConnectionError;
const both =
  (...tests: Array<(error: unknown) => boolean>) =>
  (error: unknown) =>
    tests.every((test) => test(error));

/** Node's TLS verification codes: the server's certificate is not one the worker trusts. */
const UNTRUSTED_CERTIFICATE =
  /^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|ERR_TLS_CERT_ALTNAME_INVALID|CERT_UNTRUSTED|CERT_REJECTED)$/;

/** HTTP statuses that retrying cannot fix. */
const PERMANENT_STATUSES = new Set([400, 401, 403, 404, 422]);

/** An AI SDK `APICallError` with this status. */
const apiCallStatus = (test: (status: number) => boolean) => (error: unknown) =>
  isApiCallError(error) && error.statusCode !== undefined && test(error.statusCode);
/** One of the AI SDK's own errors, by name. */
const aiSdk =
  (...names: string[]) =>
  (error: unknown) =>
    names.some((name) => isAiSdkError(error, name));

/** The table. */
export const MODEL_ERROR_TABLE: readonly ModelErrorRow[] = [
  // Raised by durable-agent itself on the worker.
  {
    error: "TooManyToolCallsError (limits.toolCallsPerAnswer)",
    fault: "permanent",
    why: "a limit: the same answer would come back",
    matches: (e) => TooManyToolCallsError.isInstance(e),
  },
  {
    error: "PayloadTooLargeError (an answer over Temporal's payload limit)",
    fault: "permanent",
    why: "a limit: the same answer would come back",
    matches: (e) => PayloadTooLargeError.isInstance(e),
  },
  {
    error: "an answer with no choices (validateAnswer; streamed: no assistant message)",
    fault: "permanent",
    why: "the answer fails validateAnswer",
    matches: (e) =>
      (ModelApiError.isInstance(e) && / returned no choices\.$/.test(e.message)) ||
      streamHelper(/^stream ended without producing a ChatCompletionMessage with role=assistant$/)(e),
  },
  {
    error: "LoadAPIKeyError: no API key",
    fault: "permanent",
    why: "a setting of the worker",
    matches: (e) => LoadAPIKeyError.isInstance(e),
  },
  {
    error: "a 2xx that is not a chat completion stream (HTML, a login page, plain text, JSON)",
    fault: "permanent",
    why: "a wrong baseURL or a proxy's page: the same body would come back",
    matches: (e) => notAnEventStream(e) !== undefined,
  },
  // The activity's cancellation (run cancelled, worker shutting down): reported as such, retryable.
  {
    error: "APIUserAbortError (the call was aborted)",
    fault: "transient",
    why: "the worker is shutting down or the run was cancelled; Temporal decides",
    matches: (e) => e instanceof OpenAI.APIUserAbortError,
  },
  // HTTP status errors (`openai`'s APIError subclasses; OAuthError is a 400/401/403).
  {
    error: "400 BadRequestError",
    fault: "permanent",
    why: "the request is wrong; it would be sent again unchanged",
    matches: status(400),
  },
  { error: "401 AuthenticationError", fault: "permanent", why: "the API key is wrong", matches: status(401) },
  {
    error: "403 PermissionDeniedError",
    fault: "permanent",
    why: "the key may not use this model",
    matches: status(403),
  },
  {
    error: "404 NotFoundError",
    fault: "permanent",
    why: "no such model or route (check baseURL)",
    matches: status(404),
  },
  {
    error: "422 UnprocessableEntityError",
    fault: "permanent",
    why: "the request is wrong; it would be sent again unchanged",
    matches: status(422),
  },
  { error: "408 request timeout", fault: "transient", why: "the server gave up waiting", matches: status(408) },
  {
    error: "409 ConflictError",
    fault: "transient",
    why: "a conflict on the server's side, e.g. a lock",
    matches: status(409),
  },
  {
    error: "429 RateLimitError",
    fault: "transient",
    why: "rate limited; Retry-After is honoured",
    retryAfter: true,
    matches: status(429),
  },
  {
    error: "5xx InternalServerError (500, 502, 503, 504, ...)",
    fault: "transient",
    why: "the server or a proxy failed; Retry-After is honoured",
    retryAfter: true,
    matches: (e) => e instanceof OpenAI.APIError && (e.status ?? 0) >= 500,
  },
  {
    error: "another HTTP status (402, 413, 451, ...)",
    fault: "transient",
    why: "not in the list of what retrying cannot fix",
    retryAfter: true,
    matches: (e) => e instanceof OpenAI.APIError && e.status !== undefined,
  },
  {
    error:
      "an error event inside the stream with code 400/401/403/404/422 (e.g. a context-size error sent as an event)",
    fault: "permanent",
    why: "the server says the request is wrong, mid-stream; it would be sent again unchanged",
    matches: (e) =>
      e instanceof OpenAI.APIError &&
      e.status === undefined &&
      !connection(e) &&
      PERMANENT_STATUSES.has(Number(e.code)),
  },
  {
    error: "APIError without a status (an error event inside the stream)",
    fault: "transient",
    why: "the server failed mid-answer (overloaded, restarting)",
    matches: (e) => e instanceof OpenAI.APIError && e.status === undefined && !connection(e),
  },
  // No response: `fetch failed`.
  {
    error: "APIConnectionTimeoutError (UND_ERR_CONNECT_TIMEOUT, UND_ERR_HEADERS_TIMEOUT)",
    fault: "transient",
    why: "the server did not answer in time",
    matches: (e) => e instanceof OpenAI.APIConnectionTimeoutError,
  },
  {
    error: "APIConnectionError ← an untrusted TLS certificate (self-signed, unknown CA, wrong host name, expired)",
    fault: "permanent",
    why: "the worker does not trust the server: set NODE_EXTRA_CA_CERTS or fix the certificate",
    matches: both(connection, hasCode(UNTRUSTED_CERTIFICATE)),
  },
  {
    error: "APIConnectionError ← a baseURL fetch refuses (unknown scheme, a blocked port)",
    fault: "permanent",
    why: "fetch refuses the URL before connecting",
    matches: both(connection, messageIn(/^(unknown scheme|bad port)$/)),
  },
  {
    error:
      "APIConnectionError ← refused, unreachable or not resolved (ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ENOTFOUND, EAI_AGAIN)",
    fault: "transient",
    why: "the server is down, restarting or its name does not resolve yet",
    matches: both(connection, hasCode(/^(ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ETIMEDOUT)$/)),
  },
  {
    error:
      "APIConnectionError ← the socket closed before the headers (UND_ERR_SOCKET, ECONNRESET, EPIPE, UND_ERR_CLOSED)",
    fault: "transient",
    why: "a proxy or load balancer dropped the connection",
    matches: both(connection, hasCode(/^(UND_ERR_SOCKET|ECONNRESET|EPIPE|UND_ERR_CLOSED|UND_ERR_DESTROYED)$/)),
  },
  {
    error: "APIConnectionError ← a response that is not HTTP/1.1 (HPE_*, UND_ERR_HEADERS_OVERFLOW)",
    fault: "transient",
    why: "a proxy sent garbage; the next connection may not",
    matches: both(connection, hasCode(/^(HPE_|UND_ERR_HEADERS_OVERFLOW$)/)),
  },
  {
    error: "APIConnectionError (any other cause)",
    fault: "transient",
    why: "no response: nothing says the next attempt fails too",
    matches: connection,
  },
  {
    error: "an API key or header that is not a valid HTTP header value",
    fault: "permanent",
    why: "fetch refuses the request before sending it",
    matches: messageIn(/is an invalid header value/),
  },
  // AI SDK models (ai.model()): the provider package's errors, and what the AI SDK path raises.
  {
    error: "AgentOptionsError: a setting the provider does not support (its unsupported warning)",
    fault: "permanent",
    why: "the provider would ignore or change the setting on every attempt",
    matches: (e) => AgentOptionsError.isInstance(e),
  },
  {
    error: "LoadAPIKeyError / LoadSettingError (AI SDK: no API key or setting for the provider)",
    fault: "permanent",
    why: "a setting of the worker",
    matches: aiSdk("AI_LoadAPIKeyError", "AI_LoadSettingError"),
  },
  {
    error:
      "InvalidPromptError / InvalidArgumentError / UnsupportedFunctionalityError (AI SDK: the provider cannot take the request)",
    fault: "permanent",
    why: "the request is wrong for this provider; it would be built again unchanged",
    matches: aiSdk("AI_InvalidPromptError", "AI_InvalidArgumentError", "AI_UnsupportedFunctionalityError"),
  },
  {
    error: "APICallError 400/401/403/404/422 (AI SDK: bad request, auth, no such model)",
    fault: "permanent",
    why: "retrying sends the same request and gets the same answer",
    matches: apiCallStatus((status) => PERMANENT_STATUSES.has(status)),
  },
  {
    error: "APICallError 429 (AI SDK: rate limited)",
    fault: "transient",
    why: "rate limited; Retry-After is honoured",
    retryAfter: true,
    matches: apiCallStatus((status) => status === 429),
  },
  {
    error: "APICallError 529 (AI SDK: Anthropic overloaded)",
    fault: "transient",
    why: "the provider is overloaded; Retry-After is honoured",
    retryAfter: true,
    matches: apiCallStatus((status) => status === 529),
  },
  {
    error: "APICallError with isRetryable (AI SDK: 408, 409, 5xx, a failed fetch)",
    fault: "transient",
    why: "the provider package says retrying may help; Retry-After is honoured",
    retryAfter: true,
    matches: (e) => isApiCallError(e) && e.isRetryable === true,
  },
  {
    error: "APICallError without isRetryable (AI SDK: another status)",
    fault: "permanent",
    why: "the provider package says retrying will not help",
    matches: (e) => isApiCallError(e) && e.isRetryable === false,
  },
  {
    error:
      "an error part in the answer's stream naming a bad request or auth (AI SDK: invalid_request_error, authentication_error, ...)",
    fault: "permanent",
    why: "the provider says the request is wrong, mid-stream",
    matches: (e) => ProviderStreamError.isInstance(e) && e.kind !== undefined && PERMANENT_STREAM_ERRORS.has(e.kind),
  },
  {
    error: "an error part in the answer's stream (AI SDK: overloaded_error, rate_limit_error, api_error, ...)",
    fault: "transient",
    why: "the provider failed mid-answer",
    matches: (e) => ProviderStreamError.isInstance(e),
  },
  {
    error: "a stream cut mid-answer (AI SDK: no finish part, or finish reason interrupted / error)",
    fault: "transient",
    why: "a connection lost mid-answer",
    matches: (e) => StreamCutError.isInstance(e),
  },
  {
    error: "the provider's content filter stopped the answer (AI SDK: finish reason content-filter)",
    fault: "permanent",
    why: "the same request ends the same way",
    matches: (e) => ContentFilterError.isInstance(e),
  },
  {
    error: "JSONParseError / TypeValidationError / InvalidResponseDataError (AI SDK: a garbled chunk or answer)",
    fault: "transient",
    why: "a garbled answer; the next may be whole",
    matches: aiSdk(
      "AI_JSONParseError",
      "AI_TypeValidationError",
      "AI_InvalidResponseDataError",
      "AI_EmptyResponseBodyError",
      "AI_NoContentGeneratedError",
    ),
  },
  // The stream broke after it started.
  {
    error: "terminated ← UND_ERR_SOCKET (the server or a proxy closed the socket mid-stream)",
    fault: "transient",
    why: "a connection lost mid-answer",
    matches: both(messageIn(/^terminated$/), hasCode(/^UND_ERR_SOCKET$/)),
  },
  {
    error: "terminated ← ECONNRESET / EPIPE (a TCP reset mid-stream)",
    fault: "transient",
    why: "a connection lost mid-answer",
    matches: both(messageIn(/^terminated$/), hasCode(/^(ECONNRESET|EPIPE)$/)),
  },
  {
    error: "terminated (any other cause: UND_ERR_BODY_TIMEOUT, UND_ERR_RES_CONTENT_LENGTH_MISMATCH, ...)",
    fault: "transient",
    why: "the body stopped arriving",
    matches: messageIn(/^terminated$/),
  },
  {
    error: "Premature close (ERR_STREAM_PREMATURE_CLOSE, from a fetch built on Node streams)",
    fault: "transient",
    why: "a connection lost mid-answer",
    matches: hasCode(/^ERR_STREAM_PREMATURE_CLOSE$/),
  },
  {
    error: "missing finish_reason (the body ended without the final chunk)",
    fault: "transient",
    why: "the server stopped mid-answer",
    matches: streamHelper(/^missing finish_reason for choice/),
  },
  {
    error: "request ended without sending any chunks (an empty event stream)",
    fault: "transient",
    why: "the server closed the stream before its first chunk",
    matches: streamHelper(
      /^(request ended without sending any chunks|stream ended without producing a ChatCompletion)$/,
    ),
  },
  {
    error: "a chunk that is not JSON (SyntaxError)",
    fault: "transient",
    why: "a garbled chunk; the next answer may be whole",
    matches: (e) => causeChain(e).some((c) => c instanceof SyntaxError),
  },
  {
    error: "a chunk of the wrong shape (missing role, tool call fields; TypeError in the stream helper)",
    fault: "transient",
    why: "a garbled chunk; the next answer may be whole",
    matches: (e) =>
      streamHelper(/^(missing |tool call snapshot missing |no tool call snapshot)/)(e) ||
      causeChain(e).some((c) => c instanceof TypeError),
  },
  // Only raised for auto-parsed tools or response formats, which durable-agent does not send.
  {
    error: "LengthFinishReasonError / ContentFilterFinishReasonError",
    fault: "permanent",
    why: "maxTokens or the provider's content filter: the same request ends the same way",
    matches: (e) => e instanceof LengthFinishReasonError || e instanceof ContentFilterFinishReasonError,
  },
];

/** What the table says about an error: the matching row (none: transient by default) and the fault. */
export function classifyModelError(error: unknown): { row: ModelErrorRow | undefined; fault: ModelFault } {
  const row = MODEL_ERROR_TABLE.find((candidate) => candidate.matches(error));
  return { row, fault: row?.fault ?? "transient" };
}

/** The typed error a failed model call ends with: durable-agent's own as it is, anything else as a `ModelApiError` naming the model. */
export function modelApiErrorFor(error: unknown, modelId: string): DurableAgentError {
  const typed = causeChain(error).find((e) => DurableAgentError.isInstance(e));
  if (typed) return typed as DurableAgentError;
  const noKey = causeChain(error).find((e) => isAiSdkError(e, "AI_LoadAPIKeyError")) as Error | undefined;
  if (noKey) {
    const variable = /\b[A-Z][A-Z0-9_]*_API_KEY\b/.exec(noKey.message)?.[0];
    const where = variable ? `set ${variable} on the worker, or pass apiKey to the provider` : noKey.message;
    return new LoadAPIKeyError(`No API key for model "${modelId}": ${where}.`, modelId, variable);
  }
  const body = notAnEventStream(error);
  if (body)
    return new ModelApiError(modelErrorMessage(error, modelId), body.status, modelId, {
      contentType: body.contentType,
      bodyStart: body.bodyStart,
    });
  return new ModelApiError(modelErrorMessage(error, modelId), statusOf(error), modelId);
}

/** The HTTP status of a failed call, from either client's error. */
function statusOf(error: unknown): number | undefined {
  if (error instanceof OpenAI.APIError) return error.status;
  if (ProviderStreamError.isInstance(error)) return error.status;
  return isApiCallError(error) ? error.statusCode : undefined;
}

/** The response headers of a failed call (for Retry-After), from either client's error. */
export function responseHeadersOf(error: unknown): Headers | undefined {
  if (error instanceof OpenAI.APIError) return error.headers;
  if (isApiCallError(error) && error.responseHeaders) return new Headers(error.responseHeaders);
  return undefined;
}

/** The message of the `ModelApiError` a failed model call ends with: the model, the status, and each cause. */
export function modelErrorMessage(error: unknown, modelId: string): string {
  if (error instanceof OpenAI.APIError && error.status !== undefined)
    return `Model "${modelId}" API error ${error.status}: ${error.message}`;
  if (isApiCallError(error) && error.statusCode !== undefined)
    return `Model "${modelId}" API error ${error.statusCode}: ${error.message}`;
  if (ProviderStreamError.isInstance(error))
    return `Model "${modelId}" API error${error.status ? ` ${error.status}` : ""} mid-answer${error.kind ? ` (${error.kind})` : ""}: ${error.detail}`;
  const body = notAnEventStream(error);
  if (body) return `Model "${modelId}": ${body.message}`;
  const detail = describeChain(error);
  if (error instanceof OpenAI.APIConnectionError) return `Model "${modelId}" is unreachable: ${detail}`;
  return `Model "${modelId}": ${detail}`;
}

function notAnEventStream(error: unknown): NotAnEventStreamError | undefined {
  return causeChain(error).find((e): e is NotAnEventStreamError => NotAnEventStreamError.isInstance(e));
}

/** "terminated ← other side closed (UND_ERR_SOCKET)": each cause once, with its code. */
function describeChain(error: unknown): string {
  const parts: string[] = [];
  for (const cause of causeChain(error)) {
    const message = cause instanceof Error ? cause.message : String(cause);
    const code = (cause as { code?: unknown })?.code;
    const part = typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message;
    if (parts.at(-1) !== part && parts.at(-1) !== message) parts.push(part);
  }
  return parts.join(" ← ");
}
