/**
 * Worker-side, pure: a run's conversation as the prompt of the AI SDK's provider specification
 * (`LanguageModelV4Prompt`, and the V3 and V2 forms). This is the one place that reads our
 * messages for an AI SDK model, recorded before or after answers carried parts: an answer's
 * reasoning parts, the calls the provider ran (each with its result), text and tool calls go back in that order, each with the provider metadata it
 * came with as its `providerOptions` (an Anthropic thinking signature, an OpenAI reasoning item
 * with its encrypted content, a Gemini thought signature), which is how the provider packages
 * read them back.
 */
import type {
  JSONValue,
  LanguageModelV2Prompt,
  LanguageModelV3Prompt,
  LanguageModelV4FilePart,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4TextPart,
  LanguageModelV4ToolResultOutput,
  LanguageModelV4ToolResultPart,
  SharedV4ProviderOptions,
} from "@ai-sdk/provider";
import type { ContentPart, Message, ProviderMetadata } from "../core/types.js";
import type { LanguageModelSpecification } from "./ai-sdk-model.js";
import { imagesMessageText, toolResultImages, type ToolResultImage } from "./tool-result-media.js";

/** How the conversation is sent to this provider. */
export interface PromptOptions {
  /** The provider takes images inside tool results (Anthropic, OpenAI Responses, Gemini). */
  imagesInToolResults: boolean;
}

/** Providers whose tool results may hold images: by the start of the model's `provider`. */
const IMAGES_IN_TOOL_RESULTS = ["anthropic.", "openai.responses", "azure.responses", "google.", "google-vertex."];

/** Whether a provider (a language model's `provider`) takes images in tool results. */
export function takesImagesInToolResults(provider: string): boolean {
  return IMAGES_IN_TOOL_RESULTS.some((prefix) => provider.startsWith(prefix));
}

const options = (metadata: ProviderMetadata | undefined) =>
  metadata ? { providerOptions: metadata as SharedV4ProviderOptions } : {};

/** The conversation after the instructions, as the specification's V4 prompt. */
export function toLanguageModelPrompt(
  instructions: string | undefined,
  messages: Message[],
  { imagesInToolResults }: PromptOptions,
): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = instructions ? [{ role: "system", content: instructions }] : [];
  let results: LanguageModelV4ToolResultPart[] = [];
  let withImages: Array<{ name: string; images: ToolResultImage[] }> = [];
  const endResults = () => {
    if (results.length) prompt.push({ role: "tool", content: results });
    results = [];
    if (withImages.length) {
      const count = withImages.map((call) => ({ name: call.name, images: call.images.length }));
      prompt.push({
        role: "user",
        content: [
          { type: "text", text: imagesMessageText(count) },
          ...withImages.flatMap((call) => call.images.map(imageFilePart)),
        ],
      });
    }
    withImages = [];
  };
  for (const message of messages) {
    if (message.role === "tool") {
      const images = toolResultImages(message.content);
      let output: LanguageModelV4ToolResultOutput = { type: "text", value: images?.text ?? message.content };
      if (images && imagesInToolResults) {
        output = {
          type: "content",
          value: images.parts.map((part) =>
            part.type === "text"
              ? part
              : { type: "file" as const, mediaType: part.mediaType, data: { type: "data" as const, data: part.data } },
          ),
        };
      } else if (images) withImages.push({ name: message.name, images: images.images });
      results.push({ type: "tool-result", toolCallId: message.toolCallId, toolName: message.name, output });
      continue;
    }
    endResults();
    prompt.push(messageOf(message));
  }
  endResults();
  return prompt;
}

function messageOf(message: Exclude<Message, { role: "tool" }>): LanguageModelV4Message {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return {
        role: "user",
        content:
          typeof message.content === "string"
            ? [{ type: "text", text: message.content }]
            : message.content.map(userPart),
      };
    case "assistant": {
      const content: Extract<LanguageModelV4Message, { role: "assistant" }>["content"] = [];
      for (const part of message.reasoning ?? [])
        content.push({ type: "reasoning", text: part.text, ...options(part.providerMetadata) });
      for (const call of message.providerToolCalls ?? []) {
        const { id: toolCallId, name: toolName, providerMetadata } = call;
        content.push({
          type: "tool-call",
          toolCallId,
          toolName,
          input: call.input,
          providerExecuted: true,
          ...options(providerMetadata),
        });
        if (call.output !== undefined)
          content.push({
            type: "tool-result",
            toolCallId,
            toolName,
            output: { type: call.isError ? "error-json" : "json", value: call.output as JSONValue },
            ...options(providerMetadata),
          });
      }
      if (message.content) content.push({ type: "text", text: message.content, ...options(message.textMetadata) });
      for (const call of message.toolCalls ?? [])
        content.push({
          type: "tool-call",
          toolCallId: call.id,
          toolName: call.name,
          input: parsedArguments(call.arguments),
          ...options(call.providerMetadata),
        });
      if (content.length === 0)
        content.push({ type: "text", text: message.content ?? "", ...options(message.textMetadata) });
      return { role: "assistant", content };
    }
  }
}

/** Arguments as the object they encode (`{}` for none); text that is not JSON is sent as it is. */
function parsedArguments(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function userPart(part: ContentPart): LanguageModelV4TextPart | LanguageModelV4FilePart {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image_url": {
      const data = dataUrl(part.image_url.url);
      const detail = part.image_url.detail
        ? { providerOptions: { openai: { imageDetail: part.image_url.detail } } }
        : {};
      if (data)
        return { type: "file", mediaType: data.mediaType, data: { type: "data", data: data.base64 }, ...detail };
      return { type: "file", mediaType: "image/*", data: { type: "url", url: new URL(part.image_url.url) }, ...detail };
    }
    case "file": {
      const data = dataUrl(part.file.file_data);
      const name = part.file.filename ? { filename: part.file.filename } : {};
      if (data) return { type: "file", mediaType: data.mediaType, data: { type: "data", data: data.base64 }, ...name };
      return {
        type: "file",
        mediaType: "application/octet-stream",
        data: { type: "url", url: new URL(part.file.file_data) },
        ...name,
      };
    }
  }
}

function imageFilePart(image: ToolResultImage): LanguageModelV4FilePart {
  return { type: "file", mediaType: image.mediaType, data: { type: "data", data: image.data } };
}

/** A `data:<type>;base64,<data>` URL's parts. */
function dataUrl(url: string): { mediaType: string; base64: string } | undefined {
  const match = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  return match ? { mediaType: match[1]!, base64: match[2]! } : undefined;
}

/** The V4 prompt in the form of an older specification version: file data untagged; images in tool results as V3's `image-data` / V2's `media`. */
export function promptFor(
  version: LanguageModelSpecification,
  prompt: LanguageModelV4Prompt,
): LanguageModelV4Prompt | LanguageModelV3Prompt | LanguageModelV2Prompt {
  if (version === "v4") return prompt;
  const untagged = (data: LanguageModelV4FilePart["data"]) =>
    data.type === "data" ? data.data : data.type === "url" ? data.url : "";
  return prompt.map((message) => {
    if (message.role === "system") return message;
    const content = (message.content as Array<{ type: string }>).map((part) => {
      if (part.type === "file") {
        const file = part as LanguageModelV4FilePart;
        return { ...file, data: untagged(file.data) };
      }
      if (part.type === "tool-result") {
        const result = part as LanguageModelV4ToolResultPart;
        if (result.output.type !== "content") return result;
        const value = result.output.value.map((item) => {
          if (item.type !== "file") return item;
          const data = untagged(item.data);
          return version === "v3"
            ? { type: "image-data", data, mediaType: item.mediaType }
            : { type: "media", data, mediaType: item.mediaType };
        });
        return { ...result, output: { type: "content", value } };
      }
      return part;
    });
    return { ...message, content };
  }) as LanguageModelV3Prompt | LanguageModelV2Prompt;
}
