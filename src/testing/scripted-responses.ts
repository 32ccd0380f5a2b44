/**
 * A scripted OpenAI Responses API (`POST /v1/responses`) on loopback, for `@ai-sdk/openai`
 * (`createOpenAI({ baseURL }).responses(...)`) or the `openai` client's `responses.create`: output
 * items (reasoning with its id and encrypted content, a message, function calls), whole or
 * streamed as the API's semantic events with sequence numbers.
 */
import {
  namedEvent,
  pieces,
  startProviderServer,
  type ScriptedErrorKind,
  type ScriptedProviderHandler,
  type ScriptedProviderOptions,
  type ScriptedProviderRequest,
  type ScriptedProviderServer,
  type ScriptedProviderTurn,
  type ScriptedTokenUsage,
  type WireAnswer,
  type WireProtocol,
} from "./scripted-provider.js";
import type { StatusTurn } from "./scripted-server.js";

/** A Responses API request body as the client sent it (the fields tests read most). */
export interface ScriptedResponsesBody {
  model: string;
  input: string | Array<Record<string, unknown>>;
  instructions?: string;
  tools?: Array<Record<string, unknown>>;
  tool_choice?: unknown;
  text?: Record<string, unknown>;
  reasoning?: Record<string, unknown>;
  /** Extra output the client asks for, e.g. `reasoning.encrypted_content`. */
  include?: string[];
  store?: boolean;
  previous_response_id?: string;
  stream?: boolean;
  [field: string]: unknown;
}

/** A running scripted OpenAI Responses server; `baseURL` is `<url>/v1`. */
export type ScriptedResponses = ScriptedProviderServer<ScriptedResponsesBody>;

/**
 * Starts a scripted OpenAI Responses API on 127.0.0.1. With an array, request N gets turn N, and
 * a request past the end gets a 400 `invalid_request_error` saying so; with a function, every
 * request gets what it returns. Point `createOpenAI({ baseURL: server.baseURL, apiKey }).responses(id)` at it.
 * As the real API does, a reasoning item carries `encrypted_content` only when the request's
 * `include` asks for `reasoning.encrypted_content` (`@ai-sdk/openai` does with `store: false`).
 */
export function startScriptedResponses(
  script: ScriptedProviderTurn[] | ScriptedProviderHandler<ScriptedResponsesBody>,
  options: ScriptedProviderOptions = {},
): Promise<ScriptedResponses> {
  return startProviderServer(responses, script, options);
}

const ERRORS: Record<ScriptedErrorKind, { status: number; type: string; code: string | null; message: string }> = {
  "rate-limit": {
    status: 429,
    type: "requests",
    code: "rate_limit_exceeded",
    message: "Rate limit reached for requests. Please try again later.",
  },
  overloaded: {
    status: 503,
    type: "server_error",
    code: "server_is_overloaded",
    message: "The server is overloaded. Please try again later.",
  },
  "bad-request": { status: 400, type: "invalid_request_error", code: null, message: "Invalid value for 'input'." },
  auth: { status: 401, type: "invalid_request_error", code: "invalid_api_key", message: "Incorrect API key provided." },
  server: {
    status: 500,
    type: "server_error",
    code: null,
    message: "The server had an error while processing your request.",
  },
};

const responses: WireProtocol<ScriptedResponsesBody> = {
  basePath: "/v1",
  matches: (method, path) => method === "POST" && path.split("?")[0] === "/v1/responses",
  describe: (body) => ({ model: body.model, stream: body.stream === true }),
  errorBody: (message, status) => ({
    error: { message, type: status >= 500 ? "server_error" : "invalid_request_error", param: null, code: null },
  }),
  error(kind, message): StatusTurn {
    const error = ERRORS[kind];
    return {
      status: error.status,
      body: { error: { message: message ?? error.message, type: error.type, param: null, code: error.code } },
      headers: { "x-request-id": "req_scripted" },
    };
  },
  body: (answer, request) => response(answer, request, "done"),
  events(answer, request) {
    const events: object[] = [];
    const inProgress = response(answer, request, "in_progress");
    events.push(
      { type: "response.created", response: inProgress },
      { type: "response.in_progress", response: inProgress },
    );
    outputItems(answer, request).forEach((item, output_index) => {
      const item_id = item.id as string;
      if (item.type === "reasoning") {
        const summary = item.summary as Array<{ type: string; text: string }>;
        events.push({ type: "response.output_item.added", output_index, item: { ...item, summary: [] } });
        summary.forEach((part, summary_index) => {
          const at = { item_id, output_index, summary_index };
          events.push({
            type: "response.reasoning_summary_part.added",
            ...at,
            part: { type: "summary_text", text: "" },
          });
          for (const delta of pieces(part.text, answer.chunkSize))
            events.push({ type: "response.reasoning_summary_text.delta", ...at, delta });
          events.push(
            { type: "response.reasoning_summary_text.done", ...at, text: part.text },
            { type: "response.reasoning_summary_part.done", ...at, part },
          );
        });
      } else if (item.type === "message") {
        const text = answer.text;
        const part = { type: "output_text", annotations: [], logprobs: [], text };
        const at = { item_id, output_index, content_index: 0 };
        events.push({
          type: "response.output_item.added",
          output_index,
          item: { ...item, status: "in_progress", content: [] },
        });
        events.push({ type: "response.content_part.added", ...at, part: { ...part, text: "" } });
        for (const delta of pieces(text, answer.chunkSize))
          events.push({ type: "response.output_text.delta", ...at, delta, logprobs: [] });
        events.push(
          { type: "response.output_text.done", ...at, text, logprobs: [] },
          { type: "response.content_part.done", ...at, part },
        );
      } else {
        const args = item.arguments as string;
        events.push({
          type: "response.output_item.added",
          output_index,
          item: { ...item, status: "in_progress", arguments: "" },
        });
        for (const delta of pieces(args, answer.chunkSize))
          events.push({ type: "response.function_call_arguments.delta", item_id, output_index, delta });
        events.push({ type: "response.function_call_arguments.done", item_id, output_index, arguments: args });
      }
      events.push({ type: "response.output_item.done", output_index, item });
    });
    const done = response(answer, request, "done");
    events.push({ type: done.status === "incomplete" ? "response.incomplete" : "response.completed", response: done });
    return events.map((event, sequence_number) =>
      namedEvent((event as { type: string }).type, { ...event, sequence_number }),
    );
  },
  errorEvent(kind, index) {
    const error = ERRORS[kind];
    return namedEvent("error", {
      type: "error",
      sequence_number: index,
      code: error.code ?? error.type,
      message: error.message,
      param: null,
    });
  },
};

/** The response object: in progress (no output yet, as `response.created` carries it) or done. */
function response(
  answer: WireAnswer,
  request: ScriptedProviderRequest<ScriptedResponsesBody>,
  phase: "in_progress" | "done",
) {
  const incomplete =
    answer.finish === undefined
      ? null
      : { reason: answer.finish === "length" ? "max_output_tokens" : "content_filter" };
  const done = phase === "done";
  return {
    id: `resp_scripted_${request.index}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: !done ? "in_progress" : incomplete ? "incomplete" : "completed",
    error: null,
    incomplete_details: done ? incomplete : null,
    instructions: request.body.instructions ?? null,
    model: request.model,
    output: done ? outputItems(answer, request) : [],
    parallel_tool_calls: request.body.parallel_tool_calls ?? true,
    previous_response_id: request.body.previous_response_id ?? null,
    store: request.body.store ?? true,
    text: request.body.text ?? { format: { type: "text" } },
    tool_choice: request.body.tool_choice ?? "auto",
    tools: request.body.tools ?? [],
    usage: done && answer.usage ? usageOf(answer.usage) : null,
    metadata: {},
  };
}

/** The output items in the API's order: reasoning, the message, function calls. */
function outputItems(
  answer: WireAnswer,
  request: ScriptedProviderRequest<ScriptedResponsesBody>,
): Array<Record<string, unknown>> {
  const withEncrypted = request.body.include?.includes("reasoning.encrypted_content") === true;
  const items: Array<Record<string, unknown>> = answer.reasoning.map((reasoning, n) => ({
    id: reasoning.id ?? `rs_scripted_${request.index}_${n}`,
    type: "reasoning",
    ...(withEncrypted
      ? {
          encrypted_content:
            reasoning.encryptedContent ?? reasoning.signature ?? `scripted-encrypted-${request.index}-${n}`,
        }
      : {}),
    summary: reasoning.redacted || !reasoning.text ? [] : [{ type: "summary_text", text: reasoning.text }],
  }));
  if (answer.text)
    items.push({
      id: `msg_scripted_${request.index}`,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", annotations: [], logprobs: [], text: answer.text }],
    });
  answer.toolCalls.forEach((call, i) =>
    items.push({
      id: `fc_scripted_${request.index}_${i}`,
      type: "function_call",
      status: "completed",
      arguments: call.argumentsText,
      call_id: call.id ?? `call_scripted_${request.index}_${i}`,
      name: call.name,
    }),
  );
  return items;
}

/** The Responses API's `input_tokens` and `output_tokens` are totals, with cached and reasoning tokens as details. */
function usageOf(usage: ScriptedTokenUsage) {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: {
      cached_tokens: usage.cacheReadTokens ?? 0,
      ...(usage.cacheWriteTokens === undefined ? {} : { cache_write_tokens: usage.cacheWriteTokens }),
    },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}
