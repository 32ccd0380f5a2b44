import type { UIMessageChunk } from "ai";

/** A chunk of the UI message stream, and the answer characters it carries (text deltas, and sub-agent parts made from them). */
export interface MappedChunk {
  chunk: UIMessageChunk;
  chars?: number;
}
