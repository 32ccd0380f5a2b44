/**
 * Cursors: where a reader of a run's stream is, as one string (an SSE event id), so a reader that
 * reconnects with `Last-Event-ID` goes on exactly after it. A run's stream merges the streams of
 * its sub-agents' runs, which have offsets of their own, so a cursor holds one position per run
 * ("source"): the run itself (key "") and each sub-agent run still being read, keyed by its
 * workflow id relative to the root's (`trip-2/call_1`, a child of the root;
 * `trip-2/call_1/trip-1/call_7`, a grandchild).
 *
 * A position is a list of counters compared in order: the offset of the source's last durable
 * event, then the answer text characters read after it (text deltas are not durable, but their
 * total is), then, in a run's event stream, the reasoning characters read after it (only when
 * there are any), or, in the UI message stream, the chunk made from that event.
 *
 * Written: `12.0` (the root at offset 12), `12.40,trip-2%2Fcall_1=3.0` (the root 40 characters
 * after offset 12, and a sub-agent at its offset 3).
 */
import { InvalidStreamCursorError } from "../errors.js";

/** A position in one run's stream: counters compared in order (offset, characters, ...); offset -1 is before the first event. */
export type StreamPosition = readonly number[];

/** Positions by source: "" for the root run, else the sub-agent run's workflow id relative to the root's. */
export type StreamCursor = ReadonlyMap<string, StreamPosition>;

/** Compares two positions: negative when `a` is before `b`. */
export function comparePositions(a: StreamPosition, b: StreamPosition): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The cursor as a string: the root's position first, then `key=position` for each sub-agent run. */
export function formatCursor(cursor: StreamCursor): string {
  const entries = [...cursor].sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0));
  return entries
    .map(([key, position]) => (key === "" ? position.join(".") : `${encodeURIComponent(key)}=${position.join(".")}`))
    .join(",");
}

/** Reads a cursor `formatCursor` wrote, each position with `width` counters (up to `maxWidth`); anything else is an `InvalidStreamCursorError`. */
export function parseCursor(text: string, width: number, maxWidth = width): Map<string, StreamPosition> {
  const cursor = new Map<string, StreamPosition>();
  if (text.trim() === "") throw new InvalidStreamCursorError(text, "it is empty");
  for (const [i, entry] of text.split(",").entries()) {
    const at = entry.lastIndexOf("=");
    if (i === 0 && at !== -1) throw new InvalidStreamCursorError(text, "it does not start with the run's own position");
    if (i > 0 && at <= 0) throw new InvalidStreamCursorError(text, `"${entry}" is not a sub-agent's key=position`);
    let key: string;
    try {
      key = at === -1 ? "" : decodeURIComponent(entry.slice(0, at));
    } catch {
      throw new InvalidStreamCursorError(text, `"${entry.slice(0, at)}" is not a sub-agent's key`);
    }
    const counters = entry.slice(at + 1).split(".");
    if (
      counters.length < width ||
      counters.length > maxWidth ||
      !counters.every((c, i) => /^(0|[1-9]\d{0,15})$/.test(c) || (i === 0 && c === "-1"))
    )
      throw new InvalidStreamCursorError(
        text,
        `"${entry.slice(at + 1)}" is not a position of ${width === maxWidth ? width : `${width} to ${maxWidth}`} counters`,
      );
    if (cursor.has(key)) throw new InvalidStreamCursorError(text, `it names "${key || "the run"}" twice`);
    cursor.set(key, counters.map(Number));
  }
  return cursor;
}

/** The source key of a run in the stream of `root`: "" for the root itself, else its workflow id relative to the root's. */
export function sourceKey(root: string, workflowId: string | undefined): string {
  if (workflowId === undefined || workflowId === root) return "";
  return workflowId.startsWith(`${root}/`) ? workflowId.slice(root.length + 1) : workflowId;
}
