/**
 * A scripted Anthropic Messages API (`POST /v1/messages`) on loopback, for `@ai-sdk/anthropic`
 * (`createAnthropic({ baseURL })`) or any Anthropic client: messages with thinking and
 * redacted-thinking blocks, web searches (server tool use and its result), text and tool use,
 * streamed as the API's named events or whole.
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
  type WireAnswer,
  type WireProtocol,
} from "./scripted-provider.js";
import type { StatusTurn } from "./scripted-server.js";

/** A Messages API request body as the client sent it (the fields tests read most). */
export interface ScriptedAnthropicBody {
  model: string;
  messages: Array<{ role: string; content: string | Array<Record<string, unknown>> }>;
  system?: string | Array<Record<string, unknown>>;
  tools?: Array<Record<string, unknown>>;
  tool_choice?: Record<string, unknown>;
  thinking?: Record<string, unknown>;
  output_config?: Record<string, unknown>;
  max_tokens?: number;
  stream?: boolean;
  [field: string]: unknown;
}

/** A running scripted Anthropic Messages server; `baseURL` is `<url>/v1`. */
export type ScriptedAnthropic = ScriptedProviderServer<ScriptedAnthropicBody>;

/**
 * Starts a scripted Anthropic Messages API on 127.0.0.1. With an array, request N gets turn N,
 * and a request past the end gets a 400 `invalid_request_error` saying so; with a function, every
 * request gets what it returns. Point `createAnthropic({ baseURL: server.baseURL, apiKey })` at it.
 */
export function startScriptedAnthropic(
  script: ScriptedProviderTurn[] | ScriptedProviderHandler<ScriptedAnthropicBody>,
  options: ScriptedProviderOptions = {},
): Promise<ScriptedAnthropic> {
  return startProviderServer(anthropicMessages, script, options);
}

const ERRORS: Record<ScriptedErrorKind, { status: number; type: string; message: string }> = {
  "rate-limit": {
    status: 429,
    type: "rate_limit_error",
    message: "This request would exceed the rate limit for your organization. Please try again later.",
  },
  overloaded: { status: 529, type: "overloaded_error", message: "Overloaded" },
  "bad-request": { status: 400, type: "invalid_request_error", message: "messages: at least one message is required" },
  auth: { status: 401, type: "authentication_error", message: "invalid x-api-key" },
  server: { status: 500, type: "api_error", message: "Internal server error" },
};

const anthropicMessages: WireProtocol<ScriptedAnthropicBody> = {
  basePath: "/v1",
  matches: (method, path) => method === "POST" && path.split("?")[0] === "/v1/messages",
  describe: (body) => ({ model: body.model, stream: body.stream === true }),
  errorBody: (message, status) => ({
    type: "error",
    error: {
      type: status === 404 ? "not_found_error" : status >= 500 ? "api_error" : "invalid_request_error",
      message,
    },
  }),
  error(kind, message): StatusTurn {
    const error = ERRORS[kind];
    return {
      status: error.status,
      body: { type: "error", error: { type: error.type, message: message ?? error.message } },
      headers: { "request-id": "req_scripted" },
    };
  },
  body: (answer, request) => ({
    id: messageId(request),
    type: "message",
    role: "assistant",
    model: request.model,
    content: blocks(answer, request).map(({ block }) => block),
    stop_reason: stopReason(answer, request),
    stop_sequence: null,
    usage: usageOf(answer),
  }),
  events(answer, request) {
    const usage = usageOf(answer);
    const { output_tokens: _, output_tokens_details: __, server_tool_use: ___, ...input } = usage;
    const events = [
      namedEvent("message_start", {
        type: "message_start",
        message: {
          id: messageId(request),
          type: "message",
          role: "assistant",
          model: request.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...input, output_tokens: 1 },
        },
      }),
    ];
    blocks(answer, request).forEach(({ block, deltas }, index) => {
      const start =
        block.type === "thinking"
          ? { type: "thinking", thinking: "", signature: "" }
          : block.type === "text"
            ? { type: "text", text: "" }
            : block.type === "tool_use" || block.type === "server_tool_use"
              ? { ...block, input: {} }
              : block;
      events.push(namedEvent("content_block_start", { type: "content_block_start", index, content_block: start }));
      if (index === 0) events.push(namedEvent("ping", { type: "ping" }));
      for (const delta of deltas(answer.chunkSize))
        events.push(namedEvent("content_block_delta", { type: "content_block_delta", index, delta }));
      events.push(namedEvent("content_block_stop", { type: "content_block_stop", index }));
    });
    events.push(
      namedEvent("message_delta", {
        type: "message_delta",
        delta: { stop_reason: stopReason(answer, request), stop_sequence: null },
        usage,
      }),
    );
    events.push(namedEvent("message_stop", { type: "message_stop" }));
    return events;
  },
  errorEvent(kind) {
    const error = ERRORS[kind];
    return namedEvent("error", { type: "error", error: { type: error.type, message: error.message } });
  },
};

interface Block {
  block: { type: string; [field: string]: unknown };
  /** The block's content_block_delta payloads, for a stream. */
  deltas(chunkSize: number): object[];
}

/** The answer's content blocks in the API's order: thinking, web searches, text, tool use. */
function blocks(answer: WireAnswer, request: ScriptedProviderRequest<ScriptedAnthropicBody>): Block[] {
  const out: Block[] = answer.reasoning.map((reasoning, n) => {
    const signature = reasoning.signature ?? `scripted-signature-${request.index}-${n}`;
    if (reasoning.redacted) return { block: { type: "redacted_thinking", data: signature }, deltas: () => [] };
    const thinking = reasoning.text ?? "";
    return {
      block: { type: "thinking", thinking, signature },
      deltas: (size) => [
        ...pieces(thinking, size).map((piece) => ({ type: "thinking_delta", thinking: piece })),
        { type: "signature_delta", signature },
      ],
    };
  });
  answer.webSearches.forEach((search, n) => {
    const id = search.id ?? `srvtoolu_scripted_${request.index}_${n}`;
    const input = JSON.stringify({ query: search.query });
    out.push({
      block: { type: "server_tool_use", id, name: "web_search", input: { query: search.query } },
      deltas: (size) => pieces(input, size).map((partial_json) => ({ type: "input_json_delta", partial_json })),
    });
    const { results } = search;
    const content = Array.isArray(results)
      ? results.map((result, r) => ({
          type: "web_search_result",
          url: result.url,
          title: result.title ?? null,
          encrypted_content: result.encryptedContent ?? `scripted-encrypted-${request.index}-${n}-${r}`,
          page_age: result.pageAge ?? null,
        }))
      : { type: "web_search_tool_result_error", error_code: results.errorCode };
    // The result comes whole in its content_block_start, with no deltas.
    out.push({ block: { type: "web_search_tool_result", tool_use_id: id, content }, deltas: () => [] });
  });
  const jsonTool = answer.json !== undefined && forcesJsonTool(request.body);
  if (answer.text && !jsonTool)
    out.push({
      block: { type: "text", text: answer.text },
      deltas: (size) => pieces(answer.text, size).map((text) => ({ type: "text_delta", text })),
    });
  const calls = jsonTool
    ? [{ id: undefined, name: "json", argumentsText: JSON.stringify(answer.json), input: answer.json }]
    : answer.toolCalls;
  calls.forEach((call, i) => {
    const id = call.id ?? `toolu_scripted_${request.index}_${i}`;
    out.push({
      block: { type: "tool_use", id, name: call.name, input: call.input },
      deltas: (size) => [
        { type: "input_json_delta", partial_json: "" },
        ...pieces(call.argumentsText, size).map((partial_json) => ({ type: "input_json_delta", partial_json })),
      ],
    });
  });
  return out;
}

/**
 * `@ai-sdk/anthropic` asks a model without native structured output for JSON through a `json`
 * tool and a required tool call (`tool_choice` `any`, or `tool` naming it).
 */
function forcesJsonTool(body: ScriptedAnthropicBody): boolean {
  const choice = body.tool_choice;
  const offered = body.tools?.some((tool) => tool.name === "json") === true;
  return offered && (choice?.type === "any" || (choice?.type === "tool" && choice.name === "json"));
}

function stopReason(answer: WireAnswer, request: ScriptedProviderRequest<ScriptedAnthropicBody>): string {
  if (answer.finish === "length") return "max_tokens";
  if (answer.finish === "content-filter") return "refusal";
  return answer.toolCalls.length > 0 || (answer.json !== undefined && forcesJsonTool(request.body))
    ? "tool_use"
    : "end_turn";
}

function messageId(request: ScriptedProviderRequest<ScriptedAnthropicBody>): string {
  return `msg_scripted_${request.index}`;
}

/** Anthropic's `input_tokens` counts only the input that was neither read from nor written to the cache; web searches are counted apart. */
function usageOf({ usage, webSearches }: WireAnswer) {
  const cacheRead = usage?.cacheReadTokens ?? 0;
  const cacheWrite = usage?.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.inputTokens ?? 0) - cacheRead - cacheWrite),
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    output_tokens: usage?.outputTokens ?? 0,
    ...(usage?.reasoningTokens === undefined
      ? {}
      : { output_tokens_details: { thinking_tokens: usage.reasoningTokens } }),
    ...(webSearches.length ? { server_tool_use: { web_search_requests: webSearches.length } } : {}),
  };
}
