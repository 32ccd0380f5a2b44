/** Worker-side: the `openai` client for a model reference, and message conversion. */
import type OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import type { Message } from "../core/types.js";
import { LoadAPIKeyError } from "../errors.js";
import { createStreamingClient } from "./chat-stream.js";
import type { FunctionTool } from "./model-call-request.js";
import type { McpToolDefinition } from "../core/mcp-tools.js";
import type { ModelReference } from "./openai-model.js";
import { imagesMessageText, toolResultImages, type ToolResultImage } from "./tool-result-media.js";

const clients = new Map<string, OpenAI>();

/** A streaming client per (baseURL, apiKey), with the SDK's own retries off: Temporal retries instead. */
export function openaiClientFor(model: ModelReference): OpenAI {
  const baseURL = model.settings.baseURL ?? (process.env.OPENAI_BASE_URL || undefined);
  const apiKey = model.settings.apiKey ?? (process.env.OPENAI_API_KEY || undefined) ?? (baseURL ? "unused" : undefined);
  if (!apiKey) {
    throw new LoadAPIKeyError(
      `No API key for model "${model.modelId}": set OPENAI_API_KEY on the worker, or a baseURL for a server that needs none.`,
      model.modelId,
      "OPENAI_API_KEY",
    );
  }
  const key = `${baseURL ?? ""}\n${apiKey}`;
  let client = clients.get(key);
  if (!client) {
    client = createStreamingClient({ apiKey, baseURL });
    clients.set(key, client);
  }
  return client;
}

/**
 * Our messages in the Chat Completions shape, after the agent's instructions. An assistant message
 * is always sent with string content: `""` when the model answered with tool calls only (its
 * `content` was null). OpenAI, Ollama, vLLM and LM Studio accept `""` as they accept null, while
 * llama.cpp's server with `response_format: json_schema` aborts on null ("Content path must be a
 * string"); docs/local-models.md. An answer's reasoning has no place in this API and is not sent.
 * Chat Completions tool messages carry text only: images in tool results are named in them and
 * sent in a user message after the tool results (`tool-result-media.ts`).
 */
export function toChatMessages(instructions: string | undefined, messages: Message[]): ChatCompletionMessageParam[] {
  const converted: ChatCompletionMessageParam[] = instructions ? [{ role: "system", content: instructions }] : [];
  let withImages: Array<{ name: string; images: ToolResultImage[] }> = [];
  const sendImages = () => {
    if (withImages.length === 0) return;
    const images = withImages.flatMap((call) =>
      call.images.map((image) => ({
        type: "image_url" as const,
        image_url: { url: `data:${image.mediaType};base64,${image.data}` },
      })),
    );
    converted.push({
      role: "user",
      content: [
        {
          type: "text",
          text: imagesMessageText(withImages.map((call) => ({ name: call.name, images: call.images.length }))),
        },
        ...images,
      ],
    });
    withImages = [];
  };
  for (const message of messages) {
    if (message.role !== "tool") sendImages();
    switch (message.role) {
      case "assistant":
        converted.push({
          role: "assistant",
          content: message.content ?? "",
          ...(message.toolCalls?.length
            ? {
                tool_calls: message.toolCalls.map((c) => ({
                  id: c.id,
                  type: "function" as const,
                  function: { name: c.name, arguments: c.arguments },
                })),
              }
            : {}),
        });
        break;
      case "tool": {
        const media = toolResultImages(message.content);
        if (media) withImages.push({ name: message.name, images: media.images });
        converted.push({ role: "tool", tool_call_id: message.toolCallId, content: media?.text ?? message.content });
        break;
      }
      case "user":
        converted.push({ role: "user", content: message.content }); // text, or content parts as sent
        break;
      default:
        converted.push({ role: message.role, content: message.content });
    }
  }
  sendImages();
  return converted;
}

/** The agent's tools (and the run's MCP tools, with their own schemas) as Chat Completions function tools. */
export function toChatTools(tools: Array<FunctionTool | McpToolDefinition>): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      description: tool.description,
      parameters: "jsonSchema" in tool ? tool.jsonSchema : tool.inputSchema,
    },
  }));
}
