/**
 * Worker-side, pure: images inside a tool's result. A tool message's content is the JSON of the
 * tool's output; an MCP tool's output holds its result's content parts, and an `image` part
 * carries its picture as base64. A provider that takes images in tool results (Anthropic's
 * `tool_result`, OpenAI's Responses, Gemini) gets them as images; any other gets the result's
 * text with each image named instead of its base64, and the images in a user message after the
 * tool results. The conversation keeps the content as it was recorded: this is read at the edge,
 * when a request is built.
 */

/** An image a tool returned, as base64 with its media type. */
export interface ToolResultImage {
  mediaType: string;
  /** Base64, without a `data:` prefix. */
  data: string;
}

/** A tool result that carries images, split for the request. */
export interface ToolResultWithImages {
  /** The result in order, as text and images: for a provider that takes images in tool results. */
  parts: Array<{ type: "text"; text: string } | ({ type: "image" } & ToolResultImage)>;
  /** The result's JSON with each image's base64 replaced by a note that names it: for any other provider. */
  text: string;
  images: ToolResultImage[];
}

type ContentItem = { type?: unknown; text?: unknown; data?: unknown; mimeType?: unknown };

const isImage = (item: ContentItem): item is { type: "image"; data: string; mimeType: string } =>
  item.type === "image" &&
  typeof item.data === "string" &&
  typeof item.mimeType === "string" &&
  item.mimeType.startsWith("image/");

/** The tool message content split into text and images; undefined when it carries no image. */
export function toolResultImages(content: string): ToolResultWithImages | undefined {
  if (!content.includes('"image"')) return undefined; // most results: no parse
  let output: unknown;
  try {
    output = JSON.parse(content);
  } catch {
    return undefined;
  }
  const items = (output as { content?: unknown })?.content;
  if (!Array.isArray(items) || !items.some((item) => typeof item === "object" && item !== null && isImage(item)))
    return undefined;
  const parts: ToolResultWithImages["parts"] = [];
  const images: ToolResultImage[] = [];
  const named = items.map((item: ContentItem) => {
    if (typeof item !== "object" || item === null) {
      parts.push({ type: "text", text: JSON.stringify(item) });
      return item;
    }
    if (isImage(item)) {
      const image = { mediaType: item.mimeType, data: item.data };
      parts.push({ type: "image", ...image });
      images.push(image);
      return { ...item, data: `[image ${images.length}, ${item.mimeType}: sent as an image after the tool results]` };
    }
    parts.push({
      type: "text",
      text: item.type === "text" && typeof item.text === "string" ? item.text : JSON.stringify(item),
    });
    return item;
  });
  return { parts, text: JSON.stringify({ ...(output as object), content: named }), images };
}

/** The text of the user message that carries the images of tool results to a provider that takes none in them. */
export function imagesMessageText(calls: Array<{ name: string; images: number }>): string {
  const from = calls.map((call) => `${call.images} from ${call.name}`).join(", ");
  return `The images the tool results above returned (${from}), in order:`;
}
