/**
 * A run's stream with its sub-agents' streams merged in: when the run starts a child
 * (`subagent.started`), the child's events are read from the child's own Workflow Stream and
 * interleaved as they come, each tagged with its agent path and the child's workflow id. Reading
 * streams costs the runs no history; the run's own `run.stopped` (and what follows it) and its
 * `run.finished` come after its children's last events.
 *
 * Each event's `id` is the merged stream's cursor after it (`client/stream-cursor.ts`): the run's
 * own position and that of every child still being read. Resumed after such a cursor, the run
 * reads on from its own position and the children named in it from theirs; a child the cursor
 * does not name was read to its end before it, and is not opened again.
 */
import type { StreamedRunEvent } from "../core/run-events.js";
import { StreamOverflowError } from "../errors.js";
import { formatCursor, parseCursor, sourceKey, type StreamCursor, type StreamPosition } from "../core/stream-cursor.js";

type Next = { key: string; result: IteratorResult<StreamedRunEvent> };

/**
 * Merges `own` (the run's events, each with the run's own position as `id`) with the streams
 * `open` gives for the children it starts (each resumed after its part of `after`, if any).
 */
export async function* withSubAgentStreams(
  own: AsyncIterator<StreamedRunEvent>,
  open: (workflowId: string, after?: StreamCursor) => AsyncIterable<StreamedRunEvent>,
  root: string,
  after?: StreamCursor,
): AsyncGenerator<StreamedRunEvent> {
  const iterators = new Map<string, AsyncIterator<StreamedRunEvent>>([["", own]]);
  const pending = new Map<string, Promise<Next>>();
  const lastAgents = new Map<string, string[]>();
  /** Where each stream is: the run's own position, and each open child's cursor (relative to the child). */
  let ownPosition: StreamPosition | undefined = after?.get("");
  const children = new Map<string, StreamCursor>();
  const pull = (key: string) => {
    const next = iterators
      .get(key)!
      .next()
      .then((result) => ({ key, result }));
    // A child's stream that fails (its run failed, or no worker answers) just ends: the call's record says what happened.
    // One that overflowed (the consumer read too slowly) ends the merged stream, to be resumed from its cursor.
    const ends = (error: unknown): Next => {
      if (StreamOverflowError.isInstance(error)) throw error;
      return { key, result: { done: true, value: undefined } };
    };
    pending.set(key, key === "" ? next : next.catch(ends));
  };
  const openChild = (workflowId: string, childAfter?: StreamCursor) => {
    iterators.set(workflowId, open(workflowId, childAfter)[Symbol.asyncIterator]());
    if (childAfter) children.set(workflowId, childAfter);
    pull(workflowId);
  };
  /** The merged cursor: the run's own position, then each open child's entries under its key. */
  const cursor = (): string => {
    const merged = new Map<string, StreamPosition>(ownPosition ? [["", ownPosition]] : []);
    for (const [workflowId, child] of children) {
      const key = sourceKey(root, workflowId);
      for (const [sub, position] of child) merged.set(sub === "" ? key : `${key}/${sub}`, position);
    }
    return formatCursor(merged);
  };
  /** The run's own `run.stopped`, held while children are still read. */
  let stopped: StreamedRunEvent | undefined;
  /** Once the last child is read to its end: the held `run.stopped`, and the run's own events go on. */
  function* release(): Generator<StreamedRunEvent> {
    if (!stopped || iterators.size > 1 || !iterators.has("")) return;
    if (stopped.id !== undefined) ownPosition = parseCursor(stopped.id, 2, 3).get("");
    yield { ...stopped, id: cursor() };
    stopped = undefined;
    pull("");
  }
  pull("");
  for (const [workflowId, childAfter] of childrenToResume(root, after)) openChild(workflowId, childAfter);
  let finished: StreamedRunEvent | undefined;
  try {
    while (pending.size > 0) {
      const { key, result } = await Promise.race(pending.values());
      pending.delete(key);
      if (result.done) {
        iterators.delete(key);
        children.delete(key);
        yield* release();
        continue;
      }
      const event = result.value;
      // Text deltas are published by the model activity, untagged: they belong to the agent of the stream's last tagged event.
      if (event.agents) lastAgents.set(key, event.agents);
      const tagged = event.agents || !lastAgents.has(key) ? event : { ...event, agents: lastAgents.get(key)! };
      if (key === "") {
        if (event.type === "run.stopped" && iterators.size > 1) {
          // The answer's end waits for its children's last events (read behind it when a closed run is read again), and so does all that follows it.
          stopped = tagged;
          continue;
        }
        if (event.id !== undefined) ownPosition = parseCursor(event.id, 2, 3).get("");
        if (event.type === "run.finished") {
          finished = { ...tagged, id: cursor() };
          iterators.delete(key);
          continue;
        }
        if (event.type === "subagent.started" && !iterators.has(event.workflowId)) openChild(event.workflowId);
        yield { ...tagged, id: cursor() };
      } else {
        if (event.type === "run.finished") {
          await iterators.get(key)!.return?.();
          iterators.delete(key);
          children.delete(key);
          yield* release();
          continue;
        }
        if (event.id !== undefined) children.set(key, parseCursor(event.id, 2, 3));
        const withId = { ...tagged, id: cursor() };
        yield withId.workflowId ? withId : { ...withId, workflowId: key };
      }
      pull(key);
    }
  } finally {
    // Each stream lets go of its run: the run's own too (a stream returned while it waits at a yield).
    for (const iterator of iterators.values()) void iterator.return?.();
  }
  if (finished) yield finished;
}

/** The children a cursor names directly (not through a child of theirs), by workflow id, each with its part of the cursor. */
function childrenToResume(root: string, after: StreamCursor | undefined): Map<string, StreamCursor> {
  const resume = new Map<string, Map<string, StreamPosition>>();
  if (!after) return resume;
  const keys = [...after.keys()].filter((key) => key !== "");
  for (const key of keys) {
    if (keys.some((other) => other !== key && key.startsWith(`${other}/`))) continue; // a grandchild: its parent opens it
    const part = new Map<string, StreamPosition>();
    for (const [sub, position] of after) {
      if (sub === key) part.set("", position);
      else if (sub.startsWith(`${key}/`)) part.set(sub.slice(key.length + 1), position);
    }
    resume.set(`${root}/${key}`, part);
  }
  return resume;
}
