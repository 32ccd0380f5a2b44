/** Pages of a run's growing arrays (messages, tool calls, trace), bounded in bytes. Workflow-safe. */
import type { RunResult } from "./types.js";

/** Which array of the run a page is taken from. */
export type RunPart = "messages" | "toolCalls" | "trace";

/** A page: the items from `from`, and where the next page starts. */
export interface RunPage<T = unknown> {
  items: T[];
  next: number;
  total: number;
}

/**
 * The workflow's result: a `RunResult`, except that a result too large for one payload leaves
 * `messages` and `toolCalls` empty and says how many there are in `paged`; clients read them
 * from the closed run with `run-page`.
 */
export type AgentRunResult = RunResult & { paged?: { messages: number; toolCalls: number } };

/** Items are moved in pages of at most this many bytes of JSON (under the 512 KB payload warning). */
export const PAGE_BYTES = 256 * 1024;
/** The largest page a reader may ask for (under the 2 MB payload limit). */
export const MAX_PAGE_BYTES = 1536 * 1024;

const encoder = new TextEncoder();

/** The items from `from` whose JSON fits in `maxBytes` (at least one, so paging always advances). */
export function pageOf<T>(items: readonly T[], from: number, maxBytes: number = PAGE_BYTES): RunPage<T> {
  const page: T[] = [];
  let bytes = 0;
  for (let i = from; i < items.length; i++) {
    bytes += encoder.encode(JSON.stringify(items[i])).length;
    if (page.length > 0 && bytes > maxBytes) break;
    page.push(items[i]!);
  }
  return { items: page, next: from + page.length, total: items.length };
}
