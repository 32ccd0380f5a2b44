/** Embeds texts with the memory's embedder (the AI SDK's `embedMany`, loaded on first use). Worker side. */
import type { Memory } from "./define-memory.js";

/** One vector per text, in order. */
export async function embedTexts(memory: Memory, texts: string[], signal?: AbortSignal): Promise<number[][]> {
  if (texts.length === 0) return [];
  const { embedMany } = await import("ai");
  const { embeddings } = await embedMany({
    model: memory.embedder,
    values: texts,
    maxRetries: 0, // Temporal retries the activity
    ...(signal ? { abortSignal: signal } : {}),
  });
  return embeddings;
}
