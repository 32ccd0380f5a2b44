/** Worker-side: the `openai` client for a model reference, and message conversion. */
import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import type { Message } from "../contract/types.js";
import { ModelApiError } from "../errors.js";
import type { Tool } from "../agent/define-tool.js";
import type { ModelReference } from "./openai-model.js";

const clients = new Map<string, OpenAI>();

/** A client per (baseURL, apiKey), with the SDK's own retries off: Temporal retries instead. */
export function openaiClientFor(model: ModelReference): OpenAI {
  const baseURL = model.settings.baseURL ?? (process.env.OPENAI_BASE_URL || undefined);
  const apiKey = model.settings.apiKey ?? (process.env.OPENAI_API_KEY || undefined) ?? (baseURL ? "unused" : undefined);
  if (!apiKey) {
    throw new ModelApiError(
      `No API key for model "${model.modelId}": set OPENAI_API_KEY on the worker, or a baseURL for a server that needs none.`,
      undefined,
      model.modelId,
    );
  }
  const key = `${baseURL ?? ""}\n${apiKey}`;
  let client = clients.get(key);
  if (!client) {
    client = new OpenAI({ apiKey, baseURL, maxRetries: 0 });
    clients.set(key, client);
  }
  return client;
}

/** Our messages in the Chat Completions shape, after the agent's instructions. */
export function toChatMessages(instructions: string | undefined, messages: Message[]): ChatCompletionMessageParam[] {
  const converted = messages.map((message): ChatCompletionMessageParam => {
    switch (message.role) {
      case "assistant":
        return {
          role: "assistant",
          content: message.content,
          ...(message.toolCalls?.length
            ? { tool_calls: message.toolCalls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } })) }
            : {}),
        };
      case "tool":
        return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
      case "user":
        return { role: "user", content: message.content }; // text, or content parts as sent
      default:
        return { role: message.role, content: message.content };
    }
  });
  return instructions ? [{ role: "system", content: instructions }, ...converted] : converted;
}

/** The agent's tools as Chat Completions function tools. */
export function toChatTools(tools: Tool[]): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.jsonSchema },
  }));
}
