/**
 * Driving a provider package's language model through the provider specification
 * (`@ai-sdk/provider`): `doGenerate` and `doStream` with a prompt, and the prompt of the next trip
 * built from what the model answered, its provider metadata given back as provider options.
 */
import type {
  JSONSchema7,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from "@ai-sdk/provider";
import { APICallError } from "@ai-sdk/provider";
import { expect } from "vitest";
import { defined } from "../../src/core/defined.js";

export const weatherTool: LanguageModelV4FunctionTool = {
  type: "function",
  name: "weather",
  description: "The weather in a city",
  inputSchema: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false,
  },
};

export const planSchema: JSONSchema7 = {
  type: "object",
  properties: { day: { type: "string" }, sets: { type: "number" } },
  required: ["day", "sets"],
  additionalProperties: false,
};

type AssistantPart = Extract<LanguageModelV4Message, { role: "assistant" }>["content"][number];

export function ask(text: string): LanguageModelV4Prompt {
  return [{ role: "user", content: [{ type: "text", text }] }];
}

/** Every part of a `doStream` answer, in order (an error the stream throws ends the list as an `error` part). */
export async function streamParts(
  model: LanguageModelV4,
  options: LanguageModelV4CallOptions,
): Promise<LanguageModelV4StreamPart[]> {
  const { stream } = await model.doStream(options);
  const parts: LanguageModelV4StreamPart[] = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return parts;
      parts.push(value);
    }
  } catch (error) {
    parts.push({ type: "error", error });
    return parts;
  }
}

export function deltas(parts: LanguageModelV4StreamPart[], type: "text-delta" | "reasoning-delta"): string[] {
  return parts.flatMap((part) => (part.type === type ? [part.delta] : []));
}

export function finishOf(parts: LanguageModelV4StreamPart[]) {
  const finish = parts.find((part) => part.type === "finish");
  if (finish?.type !== "finish") throw new Error(`no finish part in ${JSON.stringify(parts.map((p) => p.type))}`);
  return finish;
}

/** The stream's parts as the content `doGenerate` would return: reasoning and text joined per block, tool calls whole. */
export function contentOf(parts: LanguageModelV4StreamPart[]): LanguageModelV4Content[] {
  const content: LanguageModelV4Content[] = [];
  const open = new Map<
    string,
    { type: "text" | "reasoning"; text: string; providerMetadata?: Record<string, Record<string, unknown>> }
  >();
  for (const part of parts) {
    if (part.type === "text-start" || part.type === "reasoning-start") {
      const block = {
        type: part.type === "text-start" ? ("text" as const) : ("reasoning" as const),
        text: "",
        ...defined({ providerMetadata: part.providerMetadata }),
      };
      open.set(`${block.type}:${part.id}`, block);
      content.push(block as LanguageModelV4Content);
    } else if (part.type === "text-delta" || part.type === "reasoning-delta") {
      const block = open.get(`${part.type === "text-delta" ? "text" : "reasoning"}:${part.id}`)!;
      block.text += part.delta;
      if (part.providerMetadata) block.providerMetadata = { ...block.providerMetadata, ...part.providerMetadata };
    } else if ((part.type === "text-end" || part.type === "reasoning-end") && part.providerMetadata) {
      const block = open.get(`${part.type === "text-end" ? "text" : "reasoning"}:${part.id}`)!;
      block.providerMetadata = { ...block.providerMetadata, ...part.providerMetadata };
    } else if (part.type === "tool-call") content.push(part);
  }
  return content;
}

/**
 * The prompt of the next trip: the question, the model's answer given back (its reasoning, text
 * and tool calls, each with its provider metadata as provider options), and a result per tool call.
 */
export function nextTrip(
  question: string,
  answer: LanguageModelV4Content[],
  results: Record<string, unknown> = {},
): LanguageModelV4Prompt {
  const assistant: AssistantPart[] = [];
  for (const part of answer) {
    const providerOptions =
      "providerMetadata" in part && part.providerMetadata ? { providerOptions: part.providerMetadata } : {};
    if (part.type === "reasoning" || part.type === "text")
      assistant.push({ type: part.type, text: part.text, ...providerOptions });
    else if (part.type === "tool-call")
      assistant.push({
        type: "tool-call",
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: JSON.parse(part.input),
        ...providerOptions,
      });
  }
  const calls = answer.flatMap((part) => (part.type === "tool-call" ? [part] : []));
  const prompt: LanguageModelV4Prompt = [...ask(question), { role: "assistant", content: assistant }];
  if (calls.length)
    prompt.push({
      role: "tool",
      content: calls.map((call) => ({
        type: "tool-result",
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: { type: "json", value: (results[call.toolName] ?? { ok: true }) as never },
      })),
    });
  return prompt;
}

/** The `APICallError` a call failed with (fails the test when it is anything else). */
export async function apiCallError(call: PromiseLike<unknown>): Promise<APICallError> {
  const error = await Promise.resolve(call).then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(APICallError.isInstance(error), `expected an APICallError, got ${String(error)}`).toBe(true);
  return error as APICallError;
}
