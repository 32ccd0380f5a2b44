import type { UIMessageChunk } from "ai";

/** The chunks that end an answer: after one, a stream that ends is complete and is not resumed. */
export const LAST_CHUNKS: ReadonlySet<UIMessageChunk["type"]> = new Set(["finish", "abort", "error"]);
