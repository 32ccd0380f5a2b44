/**
 * A run's stream with its sub-agents' streams merged in: when the run starts a child
 * (`subagent.started`), the child's events are read from the child's own Workflow Stream and
 * interleaved as they come, each tagged with its agent path and the child's workflow id. Reading
 * streams costs the runs no history; the run's own `run.finished` comes last, after its children's.
 */
import type { StreamedRunEvent } from "../core/run-events.js";

type Next = { key: string; result: IteratorResult<StreamedRunEvent> };

/** Merges `own` (the run's events) with the streams `open` gives for the children it starts. */
export async function* withSubAgentStreams(
  own: AsyncIterator<StreamedRunEvent>,
  open: (workflowId: string) => AsyncIterable<StreamedRunEvent>,
): AsyncGenerator<StreamedRunEvent> {
  const iterators = new Map<string, AsyncIterator<StreamedRunEvent>>([["", own]]);
  const pending = new Map<string, Promise<Next>>();
  const lastAgents = new Map<string, string[]>();
  const pull = (key: string) => {
    const next = iterators
      .get(key)!
      .next()
      .then((result) => ({ key, result }));
    // A child's stream that fails (its run failed, or no worker answers) just ends: the call's record says what happened.
    pending.set(key, key === "" ? next : next.catch(() => ({ key, result: { done: true, value: undefined } })));
  };
  pull("");
  let finished: StreamedRunEvent | undefined;
  try {
    while (pending.size > 0) {
      const { key, result } = await Promise.race(pending.values());
      pending.delete(key);
      if (result.done) {
        iterators.delete(key);
        continue;
      }
      const event = result.value;
      // Text deltas are published by the model activity, untagged: they belong to the agent of the stream's last tagged event.
      if (event.agents) lastAgents.set(key, event.agents);
      const tagged = event.agents || !lastAgents.has(key) ? event : { ...event, agents: lastAgents.get(key)! };
      if (key === "") {
        if (event.type === "run.finished") {
          finished = tagged;
          iterators.delete(key);
          continue;
        }
        if (event.type === "subagent.started" && !iterators.has(event.workflowId)) {
          iterators.set(event.workflowId, open(event.workflowId)[Symbol.asyncIterator]());
          pull(event.workflowId);
        }
        yield tagged;
      } else {
        if (event.type === "run.finished") {
          await iterators.get(key)!.return?.();
          iterators.delete(key);
          continue;
        }
        yield tagged.workflowId ? tagged : { ...tagged, workflowId: key };
      }
      pull(key);
    }
  } finally {
    for (const [key, iterator] of iterators) if (key !== "") void iterator.return?.();
  }
  if (finished) yield finished;
}
