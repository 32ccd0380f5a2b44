/**
 * Worker-side, pure: the checks a model's answer must pass before the run acts on it. The model
 * is an untrusted source of tool calls, so its answer is bounded by the agent's limits and made
 * safe to record: no choices is an error, too many tool calls fails the run before any executes,
 * oversized arguments are replaced by a marker (so `tool.execute` refuses the call and tells the
 * model), missing or repeated call ids are made unique, and an answer over Temporal's payload
 * limit is a typed error instead of a rejected activity result.
 */
import type { ChatCompletion } from "openai/resources/chat/completions";
import { PAYLOAD_LIMIT_BYTES } from "../core/constants.js";
import type { Message, ProviderMetadata, ProviderToolCall, ReasoningPart, RequestedToolCall } from "../core/types.js";
import { ModelApiError, PayloadTooLargeError, TooManyToolCallsError } from "../errors.js";
import { omittedArguments, utf8Bytes, type ResolvedLimits } from "../limits.js";
import { defined } from "../core/defined.js";

/** The answer as the run records it. */
export type AssistantMessage = Extract<Message, { role: "assistant" }>;

/** What `validateAnswer` needs besides the completion. */
export interface ValidateAnswerOptions {
  /** For error messages. */
  modelId: string;
  /** The agent's limits, from `limitsOf(agent.options)`. */
  limits: ResolvedLimits;
}

/** The answer to record, or the typed error to fail the model call with (not retryable: the same answer would come back). */
export type AnswerCheck =
  | { ok: true; message: AssistantMessage; adjustments: string[] }
  | { ok: false; error: ModelApiError | TooManyToolCallsError | PayloadTooLargeError };

/** Longest tool name kept as sent (OpenAI's own limit); a longer one is cut, and matches no tool. */
const MAX_TOOL_NAME = 64;

/** An answer as a model client read it, before the checks: tool calls' fields as they came. */
export interface AnswerDraft {
  content: string | null;
  toolCalls: Array<{ id: unknown; name: unknown; arguments: unknown; providerMetadata?: ProviderMetadata }>;
  reasoning?: ReasoningPart[];
  textMetadata?: ProviderMetadata;
  /** The calls the provider ran itself (not limited by `toolCallsPerAnswer`: no worker runs them). */
  providerToolCalls?: ProviderToolCall[];
}

/** Checks a completed Chat Completion against the agent's limits and returns the answer to record. */
export function validateAnswer(completion: ChatCompletion, options: ValidateAnswerOptions): AnswerCheck {
  const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
  if (!choice || typeof choice.message !== "object" || choice.message === null) {
    return {
      ok: false,
      error: new ModelApiError(`Model "${options.modelId}" returned no choices.`, undefined, options.modelId),
    };
  }
  const requested = (Array.isArray(choice.message.tool_calls) ? choice.message.tool_calls : []).filter(
    (call) => call?.type === "function",
  );
  const toolCalls = requested.map((call) => ({
    id: call.id,
    name: call.type === "function" ? call.function?.name : undefined,
    arguments: call.type === "function" ? call.function?.arguments : undefined,
  }));
  return checkAnswer(
    { content: typeof choice.message.content === "string" ? choice.message.content : null, toolCalls },
    options,
  );
}

/** Checks an answer (of any model client) against the agent's limits and returns the answer to record. */
export function checkAnswer(draft: AnswerDraft, { modelId, limits }: ValidateAnswerOptions): AnswerCheck {
  const requested = draft.toolCalls;
  if (requested.length > limits.toolCallsPerAnswer) {
    return { ok: false, error: new TooManyToolCallsError(modelId, requested.length, limits.toolCallsPerAnswer) };
  }
  const adjustments: string[] = [];
  const ids = new Set<string>();
  const toolCalls: RequestedToolCall[] = requested.map((call, index) => {
    let id = typeof call.id === "string" ? call.id : "";
    if (id === "" || ids.has(id)) {
      const fresh = uniqueId(id, index, ids);
      adjustments.push(
        `tool call #${index + 1}: id ${JSON.stringify(id)} ${id === "" ? "was missing" : "was repeated"}, now ${JSON.stringify(fresh)}`,
      );
      id = fresh;
    }
    ids.add(id);
    let name = typeof call.name === "string" ? call.name : "";
    if (name.length > MAX_TOOL_NAME) {
      adjustments.push(`tool call #${index + 1}: a name of ${name.length} characters was cut to ${MAX_TOOL_NAME}`);
      name = `${name.slice(0, MAX_TOOL_NAME)}…`;
    }
    let args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {});
    const bytes = utf8Bytes(args);
    if (bytes > limits.toolInputBytes) {
      adjustments.push(
        `tool call #${index + 1} (${name}): ${bytes} bytes of arguments omitted, over limits.toolInputBytes (${limits.toolInputBytes})`,
      );
      args = omittedArguments(bytes, limits.toolInputBytes);
    }
    return { id, name, arguments: args, ...defined({ providerMetadata: call.providerMetadata }) };
  });
  const message: AssistantMessage = {
    role: "assistant",
    content: draft.content,
    ...(toolCalls.length ? { toolCalls } : {}),
    ...(draft.reasoning?.length ? { reasoning: draft.reasoning } : {}),
    ...defined({ textMetadata: draft.textMetadata }),
    ...(draft.providerToolCalls?.length ? { providerToolCalls: draft.providerToolCalls } : {}),
  };
  const bytes = utf8Bytes(JSON.stringify(message));
  if (bytes > PAYLOAD_LIMIT_BYTES)
    return {
      ok: false,
      error: new PayloadTooLargeError(`The answer of model "${modelId}"`, bytes, PAYLOAD_LIMIT_BYTES),
    };
  return { ok: true, message, adjustments };
}

function uniqueId(id: string, index: number, taken: Set<string>): string {
  const base = `${id || "call"}_${index + 1}`;
  let candidate = base;
  for (let n = 2; taken.has(candidate); n++) candidate = `${base}_${n}`;
  return candidate;
}
