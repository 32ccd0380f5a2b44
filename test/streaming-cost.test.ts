/**
 * What streaming costs a run's history (issue 23): a subscriber adds no history event, token
 * deltas add none per token (they ride on the model call's heartbeats), and every subscriber sees
 * every durable event once, in order, across reconnects.
 */
import type { WorkflowHandle } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type StreamedRunEvent } from "../src/index.js";
import { startScriptedModel, type ScriptedRequest, type ScriptedTurn } from "../src/testing/index.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

/** Answer `trip` of the scripted conversation: 200 chunks of 4 characters each. */
const answerText = (trip: number) =>
  Array.from({ length: 200 }, (_v, i) => `t${trip}${String(i % 100).padStart(2, "0")}`).join("");
const logTool = ai.tool({ name: "log", input: z.object({ n: z.number() }), execute: async ({ n }) => ({ logged: n }) });
/** Three trips (text and a tool call, text and a tool call, text), chosen by the conversation so far: the same answers whatever the order of runs. */
const threeTrips = (request: ScriptedRequest): ScriptedTurn => {
  const trip = request.body.messages.filter((m) => m.role === "assistant").length + 1;
  return trip < 3 ? { text: answerText(trip), toolCalls: [{ name: "log", arguments: { n: trip } }] } : answerText(trip);
};

type Delta = Extract<StreamedRunEvent, { type: "text.delta" }>;
const isDelta = (e: StreamedRunEvent): e is Delta => e.type === "text.delta";
const durableOf = (events: StreamedRunEvent[]) =>
  events.filter((e) => !isDelta(e)).map(({ offset, type }) => ({ offset, type }));
const textOf = (events: StreamedRunEvent[], trip: number) =>
  events
    .filter(isDelta)
    .filter((e) => e.trip === trip)
    .map((e) => e.text)
    .join("");

async function collect(stream: AsyncIterable<StreamedRunEvent>): Promise<StreamedRunEvent[]> {
  const events: StreamedRunEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Counts of a run's history: events, workflow tasks, and the stream plumbing (Workflow Streams' poll updates and publish signals). */
async function historyCounts(handle: WorkflowHandle) {
  const events = (await handle.fetchHistory()).events ?? [];
  return {
    events: events.length,
    pollUpdates: events.filter(
      (e) =>
        e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ===
        "__temporal_workflow_stream_poll",
    ).length,
    publishSignals: events.filter(
      (e) => e.workflowExecutionSignaledEventAttributes?.signalName === "__temporal_workflow_stream_publish",
    ).length,
  };
}

describe("streaming costs the history O(1) events per answer", () => {
  it("a streamed run of 3 trips with answers of 200 chunks: no poll updates, no publish signals, at most 4 more events per trip than unstreamed, deltas add up to each answer", async () => {
    const model = await startScriptedModel(threeTrips, { chunkSize: 4, chunksPerSecond: 400 });
    const agent = ai.agent({
      name: "stream-cost",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [logTool],
    });
    const { plain, plainRead, streamed, events } = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const unread = await agent.start("Log twice", { client: harness.client, taskQueue });
      await unread.result();
      const read = await agent.start("Log twice", { client: harness.client, taskQueue });
      await collect(read.stream()); // a subscriber on an unstreamed run
      const handle = await agent.start("Log twice", { client: harness.client, taskQueue, streamText: true });
      const events = await collect(handle.stream());
      return {
        plain: await historyCounts(unread.workflow),
        plainRead: await historyCounts(read.workflow),
        streamed: await historyCounts(handle.workflow),
        events,
      };
    });
    await model.close();

    expect(plainRead).toEqual(plain); // reading is not a write
    expect(streamed.pollUpdates).toBe(0);
    expect(streamed.publishSignals).toBe(0);
    expect(streamed.events - plain.events).toBeLessThanOrEqual(4 * 3);
    for (const trip of [1, 2, 3]) {
      expect(textOf(events, trip)).toBe(answerText(trip));
      // streamed as it was produced, in several deltas, not only whole at the end
      expect(events.filter(isDelta).filter((e) => e.trip === trip).length).toBeGreaterThan(2);
    }
    const durable = durableOf(events);
    expect(durable.map((e) => e.offset)).toEqual(durable.map((_e, i) => i));
    expect(durable.at(-1)!.type).toBe("run.finished");
  }, 60_000);

  it("three concurrent subscribers, one reconnecting twice mid-answer from its last offset, all see every durable event once, in order; the reconnected one gets the answer in flight again from its start", async () => {
    const model = await startScriptedModel(threeTrips, { chunkSize: 4, chunksPerSecond: 400 });
    const agent = ai.agent({
      name: "stream-subscribers",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [logTool],
    });
    const { a, b, reconnecting, reconnects, after } = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Log twice", { client: harness.client, taskQueue, streamText: true });
      const a = collect(handle.stream());
      const b = collect(handle.stream());
      // The third breaks off at its first delta of trips 1 and 2 (mid-answer), and resumes after its last durable event.
      const reconnecting: StreamedRunEvent[] = [];
      const reconnects: number[] = [];
      let fromOffset = 0;
      for (let breakAtTrip = 1; ; breakAtTrip++) {
        let broke = false;
        for await (const event of handle.stream({ fromOffset })) {
          reconnecting.push(event);
          if (isDelta(event) && event.trip === breakAtTrip && breakAtTrip <= 2) {
            fromOffset = event.offset + 1; // a delta carries the offset of the durable event before it
            reconnects.push(reconnecting.length);
            broke = true;
            break;
          }
        }
        if (!broke) break;
      }
      const after = await collect(handle.stream()); // a subscriber of the closed run
      return { a: await a, b: await b, reconnecting, reconnects, after };
    });
    await model.close();

    expect(reconnects).toHaveLength(2);
    const all = durableOf(after);
    expect(all.map((e) => e.type)).toEqual([
      "trip.started",
      "model.answered",
      "tool.started",
      "tool.finished",
      "trip.started",
      "model.answered",
      "tool.started",
      "tool.finished",
      "trip.started",
      "model.answered",
      "run.stopped",
      "run.finished",
    ]);
    for (const events of [a, b, reconnecting]) expect(durableOf(events)).toEqual(all);
    for (const trip of [1, 2, 3]) {
      expect(textOf(a, trip)).toBe(answerText(trip));
      expect(textOf(b, trip)).toBe(answerText(trip));
      // Reconnected mid-answer: what it had of the answer, then the whole answer again from its start.
      const text = textOf(reconnecting, trip);
      const repeated = text.slice(0, text.length - answerText(trip).length);
      expect(text.endsWith(answerText(trip))).toBe(true);
      expect(answerText(trip).startsWith(repeated)).toBe(true);
      if (trip < 3) expect(repeated.length).toBeGreaterThan(0);
    }
  }, 60_000);
});
