import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ai, type StreamedRunEvent } from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { connectCountedClient, type CallCounts } from "./support/counted-client.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { planAgent, UPDATE_PLAN_CALL } from "./support/plan-agent.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const FIRST = "Lunges work the same muscles as squats with less load on the knees. I will swap them now.";
const SECOND = "Done: lunges are in your plan for leg day.";
/** The reads a stream makes of a run. */
const READS = ["DescribeWorkflowExecution", "QueryWorkflow", "GetWorkflowExecutionHistory"];
const reads = (counts: CallCounts) => READS.reduce((sum, method) => sum + counts.count(method), 0);

/** A model whose first answer waits for `gate`, then streams FIRST with a tool call; its second streams SECOND. Both paced. */
async function pacedModel(gate: Promise<unknown>, onFirstAnswer: () => void = () => undefined) {
  return startScriptedModel(
    async ({ index }) => {
      if (index > 0) return SECOND;
      await gate;
      onFirstAnswer();
      return { text: FIRST, toolCalls: [UPDATE_PLAN_CALL] };
    },
    { chunksPerSecond: 20 },
  );
}

/** What one watcher saw: its text by trip and its durable events' offsets. */
function summary(events: StreamedRunEvent[]) {
  const text = (trip: number) => events.map((e) => (e.type === "text.delta" && e.trip === trip ? e.text : "")).join("");
  const durable = events.filter((e) => e.type !== "text.delta");
  return { first: text(1), second: text(2), offsets: durable.map((e) => e.offset), last: durable.at(-1)?.type };
}

/** Reads a stream to its end, calling `onDurable` at its first durable event. */
async function watch(stream: AsyncIterable<StreamedRunEvent>, onDurable: () => void): Promise<StreamedRunEvent[]> {
  const events: StreamedRunEvent[] = [];
  for await (const event of stream) {
    if (event.type !== "text.delta" && !events.some((e) => e.type !== "text.delta")) onDurable();
    events.push(event);
  }
  return events;
}

/** A promise and its resolve function, resolved after `count` calls. */
function countdown(count: number): { done: Promise<void>; tick: () => void } {
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  let left = count;
  return { done, tick: () => --left === 0 && resolve() };
}

describe("one reader per run per process", () => {
  it("50 watchers of a run in one process make the reads of one watcher in another, and no query is rejected", async () => {
    const [one, fifty] = await Promise.all([
      connectCountedClient(harness.address),
      connectCountedClient(harness.address),
    ]);
    const attached = countdown(51);
    const model = await pacedModel(attached.done);
    const agent = planAgent(model.baseURL, "readers-fifty");
    const seen = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Swap squats for lunges", {
        client: harness.client,
        taskQueue,
        streamText: true,
      });
      const watchers = [one.client, ...Array.from({ length: 50 }, () => fifty.client)].map(async (client) =>
        watch((await ai.getRun(handle.workflowId, { client })).stream(), attached.tick),
      );
      return Promise.all(watchers);
    });
    await model.close();
    const summaries = seen.map(summary);
    for (const s of summaries) {
      expect(s).toEqual({ ...summaries[0], first: FIRST, second: SECOND, last: "run.finished" });
      expect(s.offsets).toEqual(s.offsets.map((_o, i) => i));
    }
    const deltas = seen.map((events) => events.filter((e) => e.type === "text.delta").length);
    const figures = (counts: CallCounts) => Object.fromEntries(READS.map((m) => [m, counts.count(m)]));
    console.log(
      `reads of one run: 1 watcher ${JSON.stringify(figures(one.counts))}, 50 watchers ${JSON.stringify(figures(fifty.counts))}; text deltas per watcher: 1 watcher ${deltas[0]}, 50 watchers ${Math.min(...deltas.slice(1))}-${Math.max(...deltas.slice(1))}`,
    );
    expect(deltas.every((n) => n > 2)).toBe(true); // the answers streamed, delta by delta, to every watcher
    expect(one.counts.rejections() + fifty.counts.rejections()).toBe(0);
    // The same durable reads; the describes of the answer in flight follow the answer's length, not the watchers.
    expect(fifty.counts.count("QueryWorkflow")).toBe(one.counts.count("QueryWorkflow"));
    expect(
      Math.abs(fifty.counts.count("GetWorkflowExecutionHistory") - one.counts.count("GetWorkflowExecutionHistory")),
    ).toBeLessThanOrEqual(2);
    expect(Math.abs(reads(fifty.counts) - reads(one.counts))).toBeLessThanOrEqual(
      Math.max(10, reads(one.counts) * 0.25),
    );
    await Promise.all([one.close(), fifty.close()]);
  });

  it("10 watchers of a run in 10 processes all get every delta and event, with no query rejected", async () => {
    const ready = countdown(10);
    let answerStartedAt = 0;
    const model = await pacedModel(ready.done, () => (answerStartedAt = Date.now()));
    const agent = planAgent(model.baseURL, "readers-processes");
    const tsx = fileURLToPath(new URL("../node_modules/.bin/tsx", import.meta.url));
    const child = fileURLToPath(new URL("./support/stream-watcher-child.ts", import.meta.url));
    type Line = {
      ready?: true;
      firstDeltaAt?: number;
      text?: string;
      durable?: number[];
      rejections?: number;
      calls?: Record<string, number>;
    };
    const outcomes = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Swap squats for lunges", {
        client: harness.client,
        taskQueue,
        streamText: true,
      });
      return Promise.all(
        Array.from({ length: 10 }, async () => {
          const process_ = spawn(
            tsx,
            ["--conditions=durable-agent-source", child, harness.address, handle.workflowId],
            {
              stdio: ["ignore", "pipe", "inherit"],
            },
          );
          const lines: Line[] = [];
          try {
            for await (const line of createInterface({ input: process_.stdout })) {
              const parsed = JSON.parse(line) as Line;
              if (parsed.ready) ready.tick();
              lines.push(parsed);
            }
          } finally {
            if (process_.exitCode === null) process_.kill();
          }
          const code = await new Promise<number | null>((resolve) =>
            process_.exitCode !== null ? resolve(process_.exitCode) : process_.on("exit", resolve),
          );
          return { code, firstDeltaAt: lines.find((l) => l.firstDeltaAt)?.firstDeltaAt, end: lines.at(-1)! };
        }),
      );
    });
    await model.close();
    const latencies = outcomes.map((o) => (o.firstDeltaAt ?? NaN) - answerStartedAt).sort((a, b) => a - b);
    console.log(
      `10 processes: first delta after the model's answer began, ms: ${latencies.join(", ")}; calls of one process: ${JSON.stringify(outcomes[0]?.end.calls)}`,
    );
    for (const outcome of outcomes) {
      expect(outcome.code).toBe(0);
      expect(outcome.firstDeltaAt).toBeGreaterThanOrEqual(answerStartedAt);
      expect(outcome.end.text).toBe(FIRST + SECOND);
      expect(outcome.end.durable).toEqual(outcome.end.durable!.map((_o, i) => i));
      expect(outcome.end.durable).toEqual(outcomes[0]!.end.durable);
      expect(outcome.end.rejections).toBe(0);
    }
  });

  it("between answers (waiting for approval) the reader makes no describe(), and its long poll returns when the run moves on", async () => {
    const counted = await connectCountedClient(harness.address);
    const model = await pacedModel(Promise.resolve());
    const agent = planAgent(model.baseURL, "readers-approval", true);
    const { events, describesWhileWaiting, pollReturnedAfterApprove } = await withWorker(
      harness,
      [agent],
      async ({ taskQueue }) => {
        const handle = await agent.start("Swap squats for lunges", {
          client: harness.client,
          taskQueue,
          streamText: true,
        });
        const stream = (await ai.getRun(handle.workflowId, { client: counted.client })).stream();
        const iterator = stream[Symbol.asyncIterator]();
        const events: StreamedRunEvent[] = [];
        for (;;) {
          const { value, done } = await iterator.next();
          if (done) throw new Error("the run ended without asking for approval");
          events.push(value);
          if (value.type === "approval" && value.outcome === "requested") break;
        }
        const describesAtRequest = counted.counts.count("DescribeWorkflowExecution");
        // The reader waits on the history: a long poll is in flight, and nothing else is asked.
        if (counted.counts.pending("GetWorkflowExecutionHistory") === 0)
          await counted.counts.nextStart("GetWorkflowExecutionHistory");
        const pending = await handle.pendingApprovals();
        expect(pending.map((p) => p.callId)).toHaveLength(1);
        const describesWhileWaiting = counted.counts.count("DescribeWorkflowExecution") - describesAtRequest;
        let approved = false;
        const pollReturned = counted.counts.nextEnd("GetWorkflowExecutionHistory").then(() => approved);
        approved = true;
        await handle.approve(pending[0]!.callId);
        const pollReturnedAfterApprove = await pollReturned;
        for (;;) {
          const { value, done } = await iterator.next();
          if (done) break;
          events.push(value);
        }
        return { events, describesWhileWaiting, pollReturnedAfterApprove };
      },
    );
    await model.close();
    expect(describesWhileWaiting).toBe(0);
    expect(pollReturnedAfterApprove).toBe(true);
    expect(summary(events)).toMatchObject({ first: FIRST, second: SECOND, last: "run.finished" });
    expect(events.filter((e) => e.type === "tool.finished")).toHaveLength(1);
    expect(counted.counts.rejections()).toBe(0);
    await counted.close();
  });
});
