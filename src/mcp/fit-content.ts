/** An MCP tool result as a tool call's output, within `limits.toolOutputBytes`. Pure. */

/** One content part of an MCP result (text, image, audio, resource, resource link), as sent. */
export type McpContentPart = { type: string; [key: string]: unknown };

/** What an MCP tool call's record holds as `output`: the result's content parts, and its structured content when it had some. */
export interface McpToolOutput {
  content: McpContentPart[];
  structuredContent?: Record<string, unknown>;
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");

function describePart(part: McpContentPart, size: number): string {
  const mime = typeof part.mimeType === "string" ? ` ${part.mimeType}` : "";
  const resource = part.resource as { uri?: unknown } | undefined;
  const uri = typeof resource?.uri === "string" ? ` ${resource.uri}` : "";
  return `${part.type}${mime}${uri}, ${size} bytes`;
}

function marker(what: string, limit: number): McpContentPart {
  return { type: "text", text: `[durable-agent: ${what} omitted, over limits.toolOutputBytes (${limit})]` };
}

/**
 * The output as is when its JSON fits `limit` bytes. Otherwise the parts are kept in order while
 * they fit; a text part that does not fit is cut with a marker, and every other part beyond the
 * limit (an image, a resource) is replaced by a marker part naming it. Structured content, which
 * the content parts repeat as text, is dropped first.
 */
export function fitMcpOutput(output: McpToolOutput, limit: number): McpToolOutput {
  if (bytes(output) <= limit) return output;
  const fitted: McpContentPart[] = [];
  if (output.structuredContent !== undefined)
    fitted.push(marker(`structured content of ${bytes(output.structuredContent)} bytes`, limit));
  const room = () => limit - bytes({ content: fitted }) - 1; // 1: the comma before the next part
  const rest = [...output.content];
  while (rest.length > 0) {
    const part = rest.shift()!;
    const size = bytes(part);
    if (size <= room()) {
      fitted.push(part);
      continue;
    }
    if (part.type === "text" && typeof part.text === "string") {
      const cut = cutText(part.text, room(), size, limit);
      if (cut !== undefined) {
        fitted.push({ type: "text", text: cut });
        continue;
      }
    }
    const omitted = marker(
      rest.length === 0 ? describePart(part, size) : `${describePart(part, size)} and ${rest.length} more part(s)`,
      limit,
    );
    if (bytes(omitted) <= room()) fitted.push(omitted);
    break;
  }
  return { content: fitted };
}

/** A text cut so that its part fits `room` bytes of JSON, with a marker; undefined when not even the marker fits. */
function cutText(text: string, room: number, size: number, limit: number): string | undefined {
  const note = ` …[truncated by durable-agent: a text part of ${size} bytes, over limits.toolOutputBytes (${limit})]`;
  const overhead = bytes({ type: "text", text: note });
  if (overhead > room) return undefined;
  // JSON escaping may grow the text: shrink until the part fits.
  let budget = room - overhead;
  for (;;) {
    const head = Buffer.from(text, "utf8")
      .subarray(0, Math.max(0, budget))
      .toString("utf8")
      .replace(/\uFFFD$/, "");
    const candidate = head + note;
    if (bytes({ type: "text", text: candidate }) <= room || budget <= 0) return candidate;
    budget -= Math.max(16, bytes({ type: "text", text: candidate }) - room);
  }
}
