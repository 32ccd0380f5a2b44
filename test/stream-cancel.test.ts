/**
 * Consumers that let go: a stream of a run is released the moment its consumer lets go (its SSE
 * or UI message response cancelled, `iterator.return()`, its request's signal aborted), and the
 * last watcher of a run in a process stops the run's reader, its in-flight history long poll
 * included. A consumer that stops reading, or never reads, holds a bounded buffer: past it the
 * watcher leaves the reader and its stream ends with a `StreamOverflowError` whose cursor resumes
 * with nothing durable missing. Each client here is counted by its gRPC calls, call by call.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ai, StreamOverflowError, uiMessageStream, type StreamedRunEvent } from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { connectCountedClient, type CountedClient } from "./support/counted-client.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { planAgent, UPDATE_PLAN_CALL } from "./support/plan-agent.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const HISTORY = "GetWorkflowExecutionHistory";
/** The reads a stream makes of a run. */
const READS = ["DescribeWorkflowExecution", "QueryWorkflow", HISTORY];
const reads = (counted: CountedClient) => READS.reduce((sum, method) => sum + counted.counts.count(method), 0);

/** A model whose first answer asks for three tool calls (each behind an approval), with text before them. */
async function askingModel() {
  return startScriptedModel(
    [
      {
        text: "I will swap squats for lunges, deadlifts for bridges and presses for push-ups.",
        toolCalls: [UPDATE_PLAN_CALL, UPDATE_PLAN_CALL, UPDATE_PLAN_CALL],
      },
      "Done.",
    ],
    { chunksPerSecond: 40 },
  );
}

/** Resolves once the counted client has a history long poll in flight. */
async function longPolling(counted: CountedClient): Promise<void> {
  if (counted.counts.pending(HISTORY) === 0) await counted.counts.nextStart(HISTORY);
}

/** Resolves once the counted client has no history call in flight. */
async function noLongPoll(counted: CountedClient): Promise<void> {
  while (counted.counts.pending(HISTORY) > 0) await counted.counts.nextEnd(HISTORY);
}

/** Reads `iterator` until the run's third approval request; the events read. */
async function untilApprovals(iterator: AsyncIterator<StreamedRunEvent>, seen: StreamedRunEvent[] = []) {
  while (seen.filter((e) => e.type === "approval" && e.outcome === "requested").length < 3) {
    const { value, done } = await iterator.next();
    if (done) throw new Error("the run ended before asking for its approvals");
    seen.push(value);
  }
  return seen;
}

const durableOffsets = (events: StreamedRunEvent[]) =>
  events.filter((e) => e.type !== "text.delta").map((e) => e.offset);

describe("a consumer that lets go releases its watcher and the run's long poll at once", () => {
  it("a run waiting for approval: a cancelled SSE response, iterator.return(), an aborted signal, a cancelled UI message stream and one whose request's signal aborted each end the client's long poll, and it reads nothing more when the run moves on", async () => {
    const model = await askingModel();
    const agent = planAgent(model.baseURL, "cancel-idle", true);
    const clients = await Promise.all([1, 2, 3, 4, 5].map(() => connectCountedClient(harness.address)));
    const [sse, returned, aborted, ui, request] = clients as [
      CountedClient,
      CountedClient,
      CountedClient,
      CountedClient,
      CountedClient,
    ];
    const readsAfterLetGo = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Swap my plan", { client: harness.client, taskQueue, streamText: true });
      const after = new Map<CountedClient, number>();
      /** Lets go with `letGo` once the client long-polls the waiting run, and waits for its long poll to end. */
      const release = async (counted: CountedClient, letGo: () => Promise<unknown>) => {
        await longPolling(counted);
        await letGo();
        await noLongPoll(counted);
        after.set(counted, reads(counted));
      };

      // 1. An SSE response, read to the approvals, then cancelled (a closed tab).
      const sseReader = (await ai.getRun(handle.workflowId, { client: sse.client })).stream().toSSEResponse().body!;
      const reader = sseReader.getReader();
      let text = "";
      while ((text.match(/event: approval/g) ?? []).length < 3)
        text += new TextDecoder().decode((await reader.read()).value);
      await release(sse, () => reader.cancel());

      // 2. iterator.return() on a for-await consumer's iterator, parked in next() meanwhile.
      const returnedRun = await ai.getRun(handle.workflowId, { client: returned.client });
      const iterator = returnedRun.stream()[Symbol.asyncIterator]();
      await untilApprovals(iterator);
      const parked = iterator.next();
      await release(returned, () => iterator.return!());
      expect(await parked).toEqual({ done: true, value: undefined });

      // 3. A request's signal, aborted while the consumer waits.
      const abort = new AbortController();
      const abortedRun = await ai.getRun(handle.workflowId, { client: aborted.client });
      const signalled = abortedRun.stream({ signal: abort.signal })[Symbol.asyncIterator]();
      await untilApprovals(signalled);
      const waiting = signalled.next();
      await release(aborted, async () => abort.abort());
      expect(await waiting).toEqual({ done: true, value: undefined });

      // 4. The UI message stream (what useChat reads), cancelled.
      const chunks = uiMessageStream(ui.client, handle.workflowId).getReader();
      let approvals = 0;
      while (approvals < 3) if ((await chunks.read()).value?.type === "tool-input-available") approvals++;
      await release(ui, () => chunks.cancel());

      // 5. A UI message stream given the request's signal (as createChatHandler does), its request aborted.
      const gone = new AbortController();
      const answering = uiMessageStream(request.client, handle.workflowId, { signal: gone.signal }).getReader();
      approvals = 0;
      while (approvals < 3) if ((await answering.read()).value?.type === "tool-input-available") approvals++;
      await release(request, async () => gone.abort());

      // The run moves on: none of the four reads it again.
      for (const call of await handle.pendingApprovals()) await handle.approve(call.callId);
      await handle.result();
      return clients.map((client) => reads(client) - after.get(client)!);
    });
    await model.close();
    expect(readsAfterLetGo).toEqual([0, 0, 0, 0, 0]);
    for (const client of clients) expect(client.counts.pending(HISTORY)).toBe(0);
    await Promise.all(clients.map((client) => client.close()));
  });
});

describe("a slow consumer's buffer is bounded", () => {
  it("one that never reads and one that stops reading leave the run's reader once their buffer is full; the second resumes from its overflow's cursor with nothing durable missing; a watcher beside it in the same process gets every event", async () => {
    const model = await askingModel();
    const agent = planAgent(model.baseURL, "cancel-slow", true);
    const [sibling, never] = await Promise.all([
      connectCountedClient(harness.address),
      connectCountedClient(harness.address),
    ]);
    const outcome = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Swap my plan", { client: harness.client, taskQueue, streamText: true });
      const run = await ai.getRun(handle.workflowId, { client: sibling.client });
      // A watcher that reads everything, and beside it (same client, so the same reader) one that stops after its first event.
      const full = run.stream()[Symbol.asyncIterator]();
      const stalled = run.stream({ maxBufferedEvents: 2 })[Symbol.asyncIterator]();
      const stalledSeen = [(await stalled.next()).value as StreamedRunEvent];
      const fullSeen = await untilApprovals(full);
      // The run waits: the sibling's reader long-polls it for the full watcher.
      await longPolling(sibling);
      // An SSE response nobody reads, from a process of its own: its reader reads the events so far, and lets go.
      const unread = (await ai.getRun(handle.workflowId, { client: never.client })).stream({ maxBufferedEvents: 2 });
      const response = unread.toSSEResponse();
      while (never.counts.count("QueryWorkflow") === 0 || never.counts.pending("QueryWorkflow") > 0)
        await never.counts.nextEnd("QueryWorkflow");
      await noLongPoll(never);
      const neverReads = reads(never);

      // The stalled watcher reads on: its buffer, then the overflow with the cursor of the last event it got.
      let overflow: unknown;
      try {
        for (;;) {
          const { value, done } = await stalled.next();
          if (done) break;
          stalledSeen.push(value);
        }
      } catch (error) {
        overflow = error;
      }
      expect(StreamOverflowError.isInstance(overflow)).toBe(true);
      const cursor = (overflow as StreamOverflowError).after;
      expect(cursor).toBe(stalledSeen.at(-1)!.id);
      const buffered = durableOffsets(stalledSeen).length;
      const resumed = await untilApprovals(run.stream({ after: cursor })[Symbol.asyncIterator](), [...stalledSeen]);

      await response.body!.cancel();
      for (const call of await handle.pendingApprovals()) await handle.approve(call.callId);
      for (;;) {
        const { value, done } = await full.next();
        if (done) break;
        fullSeen.push(value);
      }
      return { fullSeen, resumed, buffered, neverReads, neverReadsAtEnd: reads(never) };
    });
    await model.close();
    // The full watcher got every durable event once, in order, to run.finished.
    const offsets = durableOffsets(outcome.fullSeen);
    expect(offsets).toEqual(offsets.map((_o, i) => i));
    expect(outcome.fullSeen.at(-1)?.type).toBe("run.finished");
    // The stalled one held its first event and at most 2 more, and its resumed stream has every durable event to the approvals.
    expect(outcome.buffered).toBeLessThanOrEqual(3);
    const resumedOffsets = durableOffsets(outcome.resumed);
    expect(resumedOffsets).toEqual(offsets.slice(0, resumedOffsets.length));
    // The unread response's process read nothing after it left, though the run moved on.
    expect(outcome.neverReadsAtEnd).toBe(outcome.neverReads);
    await Promise.all([sibling.close(), never.close()]);
  });
});
