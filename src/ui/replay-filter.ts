import type { UIMessageChunk } from "ai";

/** The text a delta chunk adds, under the key of the part it adds to. */
function deltaOf(chunk: UIMessageChunk): { key: string; text: string } | undefined {
  switch (chunk.type) {
    case "text-delta":
    case "reasoning-delta":
      return { key: `${chunk.type}:${chunk.id}`, text: chunk.delta };
    case "tool-input-delta":
      return { key: `${chunk.type}:${chunk.toolCallId}`, text: chunk.inputTextDelta };
    default:
      return undefined;
  }
}

/** The same delta chunk carrying only `text`, the part of it not yet delivered. */
function withText(chunk: UIMessageChunk, text: string): UIMessageChunk {
  if (chunk.type === "tool-input-delta") return { ...chunk, inputTextDelta: text };
  if (chunk.type === "text-delta" || chunk.type === "reasoning-delta") return { ...chunk, delta: text };
  return chunk;
}

/** Whether two chunks that are not deltas are the same chunk: a `start` by its message id, any other by its whole content. */
function sameChunk(a: UIMessageChunk, b: UIMessageChunk): boolean {
  if (a.type === "start" && b.type === "start") return a.messageId === b.messageId;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Reads a replay of an answer (a resume replays it from its `start`) against the chunks already
 * known of it, and lets through only what is new. Deltas are compared by their text, not one chunk
 * for one chunk, so a replay may cut its deltas differently from the live stream: a delta that
 * straddles the known end comes out trimmed to its unknown tail. From the first chunk that does not
 * match, everything passes.
 */
export class ReplayFilter {
  private index = 0;
  /** Characters of `known[index]`'s delta already matched by the replay. */
  private offset = 0;
  private caughtUp = false;

  constructor(private readonly known: readonly UIMessageChunk[]) {}

  /** The part of `chunk` that is new, or `undefined` when the replay has only repeated what is known. */
  next(chunk: UIMessageChunk): UIMessageChunk | undefined {
    if (this.caughtUp) return chunk;
    const delta = deltaOf(chunk);
    if (delta) {
      let text = delta.text;
      while (text !== "" && this.index < this.known.length) {
        const mine = deltaOf(this.known[this.index]!);
        if (mine?.key !== delta.key) break;
        const rest = mine.text.slice(this.offset);
        const n = Math.min(rest.length, text.length);
        if (rest.slice(0, n) !== text.slice(0, n)) break;
        this.offset += n;
        text = text.slice(n);
        if (this.offset === mine.text.length) {
          this.index++;
          this.offset = 0;
        }
      }
      if (text === "") return undefined;
      this.caughtUp = true;
      return withText(chunk, text);
    }
    const mine = this.known[this.index];
    if (this.offset === 0 && mine && sameChunk(mine, chunk)) {
      this.index++;
      return undefined;
    }
    this.caughtUp = true;
    return chunk;
  }
}
