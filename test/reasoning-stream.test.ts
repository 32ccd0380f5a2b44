/**
 * Reasoning streamed live (issue 41, item 4): `@ai-sdk/anthropic` with thinking, against the
 * scripted Anthropic server, which holds its answer after the thinking block until the test saw
 * the reasoning. `stream()` yields `reasoning.delta` events, and the UI message stream
 * `reasoning-*` chunks, while the model still thinks, before the text, whole and once, through the
 * heartbeats and through Redis; a reload gets the reasoning once; a failed attempt's reasoning does
 * not mix with the next one's. A `stream()` of finished trips, and of a run that does not stream
 * text, gets each answer's reasoning once, before its text (from `model.answered`, or whole in the events).
 */
import type { Client } from "@temporalio/client";
import type { UIMessage, UIMessageChunk } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type Agent, type AgentWorkerOptions, type RunHandle, type StreamedRunEvent } from "../src/index.js";
import { startScriptedAnthropic, type ScriptedAnthropic, type ScriptedProviderTurn } from "../src/testing/index.js";
import { startRedisServer, type RedisServer } from "../src/testing/redis-server.js";
import { claudeAgent } from "./support/ai-sdk-helpers.js";
import { connectCountedClient } from "./support/counted-client.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { deferred } from "./support/ops-helpers.js";
import { messageOf, readUIStream } from "./support/ui-stream-helpers.js";
import { ReplayFilter } from "../src/ui/replay-filter.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const CHUNK = 6;
const THOUGHT = "Knees hurt on squats, so lunges with a light load come first; then I check the plan.";
const ANSWER = "Leg day: lunges, then deadlifts.";

const swapTool = ai.tool({
  name: "update_plan",
  input: z.object({ from: z.string(), to: z.string() }),
  execute: async () => ({ ok: true }),
});

type Delta = Extract<StreamedRunEvent, { type: "reasoning.delta" | "text.delta" }>;

/**
 * A Claude answer with thinking whose stream waits, once the thinking block has ended (message
 * start, block start, ping, the thinking deltas, the signature, block stop), for `resumeWhen`.
 */
function thinkingTurn(
  thought: string,
  text: string,
  resumeWhen: Promise<unknown>,
  extra: Partial<Exclude<ScriptedProviderTurn, string>> = {},
): ScriptedProviderTurn {
  const afterThinking = 3 + Math.ceil(thought.length / CHUNK) + 2;
  return {
    reasoning: { text: thought, signature: `sig-${thought.length}` },
    text,
    pauseAfterEvents: afterThinking,
    resumeWhen,
    ...extra,
  } as ScriptedProviderTurn;
}

/** The text of the deltas of one kind (and attempt, if given). */
const joined = (events: StreamedRunEvent[], type: Delta["type"], attempt?: number) =>
  events
    .filter((e): e is Delta & StreamedRunEvent => e.type === type && (attempt === undefined || e.attempt === attempt))
    .map((e) => e.text)
    .join("");

/** Reads a run's events to the end, calling `onEvent` after each. */
async function collect(
  stream: AsyncIterable<StreamedRunEvent>,
  onEvent: (seen: StreamedRunEvent[]) => void,
): Promise<StreamedRunEvent[]> {
  const events: StreamedRunEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    onEvent(events);
  }
  return events;
}

/** Reads a run's UI message stream to the end, calling `onReasoning` with the reasoning deltas of each part so far. */
async function collectUI(handle: RunHandle, onReasoning: (byPart: Map<string, string>) => void) {
  const byPart = new Map<string, string>();
  return readUIStream(handle.toUIMessageStreamResponse(), (chunk) => {
    if (chunk.type === "reasoning-delta") {
      byPart.set(chunk.id, (byPart.get(chunk.id) ?? "") + chunk.delta);
      onReasoning(byPart);
    }
    return false;
  });
}

/** A message's reasoning parts' texts and text parts' texts. */
function partsOf(message: UIMessage) {
  return {
    reasoning: message.parts.flatMap((p) => (p.type === "reasoning" ? [p.text] : [])),
    text: message.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])),
  };
}

const types = (chunks: UIMessageChunk[]) => chunks.map((c) => c.type);

/** Runs `fn` with the scripted Anthropic server and a worker serving a thinking Claude agent. */
async function onClaude<T>(
  script: ScriptedProviderTurn[],
  name: string,
  fn: (agent: Agent, taskQueue: string) => Promise<T>,
  workerOptions: Partial<AgentWorkerOptions> = {},
  agentOptions: Parameters<typeof claudeAgent>[2] = {},
): Promise<{ result: T; server: ScriptedAnthropic }> {
  const server = await startScriptedAnthropic(script, { chunkSize: CHUNK });
  try {
    const agent = claudeAgent(name, server.baseURL, agentOptions);
    const result = await withWorker(harness, [agent], ({ taskQueue }) => fn(agent, taskQueue), workerOptions);
    return { result, server };
  } finally {
    await server.close();
  }
}

/**
 * Streams one run through `stream()` and the UI message stream at once; the model goes on once
 * both saw `THOUGHT` whole. Then reloads the UI message stream.
 */
async function streamThinkingRun(client: Client, name: string, workerOptions: Partial<AgentWorkerOptions>) {
  const resume = deferred();
  const streamSaw = deferred();
  const uiSaw = deferred();
  void Promise.all([streamSaw.promise, uiSaw.promise]).then(() => resume.resolve());
  const { result, server } = await onClaude(
    [thinkingTurn(THOUGHT, ANSWER, resume.promise)],
    name,
    async (agent, taskQueue) => {
      const handle = await agent.start("Plan my leg day", { client, taskQueue, streamText: true });
      const [events, live] = await Promise.all([
        collect(handle.stream(), (seen) => joined(seen, "reasoning.delta") === THOUGHT && streamSaw.resolve()),
        collectUI(handle, (byPart) => [...byPart.values()].join("") === THOUGHT && uiSaw.resolve()),
      ]);
      // After the trip: a reload, and resumes after an event and a chunk read live (a dropped connection's last id).
      const reloaded = (await readUIStream(handle.toUIMessageStreamResponse())).chunks;
      const cutAt = events.findIndex((e) => e.type === "text.delta");
      const resumedEvents = await collect(handle.stream({ after: events[cutAt]!.id! }), () => undefined);
      const chunkCut = live.chunks.findIndex((c) => c.type === "text-delta");
      const resumedChunks = (await readUIStream(handle.toUIMessageStreamResponse({ after: live.ids[chunkCut]! })))
        .chunks;
      return {
        events,
        chunks: live.chunks,
        reloaded,
        resumed: {
          events: [...events.slice(0, cutAt + 1), ...resumedEvents],
          chunks: [...live.chunks.slice(0, chunkCut + 1), ...resumedChunks],
        },
      };
    },
    workerOptions,
  );
  expect(server.requests).toHaveLength(1);
  return result;
}

/** What both transports must give: reasoning live, before the text and the trip's end, whole and once; in the UI too, and once after a reload. */
async function expectLiveReasoning({
  events,
  chunks,
  reloaded,
  resumed,
}: Awaited<ReturnType<typeof streamThinkingRun>>) {
  const reasoning = events.filter((e) => e.type === "reasoning.delta");
  expect(reasoning.length).toBeGreaterThan(0);
  expect(reasoning.every((e) => e.trip === 1 && e.attempt === 1)).toBe(true);
  expect(joined(events, "reasoning.delta")).toBe(THOUGHT);
  expect(joined(events, "text.delta")).toBe(ANSWER);
  const lastReasoning = events.findLastIndex((e) => e.type === "reasoning.delta");
  const firstText = events.findIndex((e) => e.type === "text.delta");
  const answered = events.findIndex((e) => e.type === "model.answered");
  expect(lastReasoning).toBeLessThan(firstText);
  expect(firstText).toBeLessThan(answered);
  expect(events.at(-1)?.type).toBe("run.finished");

  // The UI: one reasoning part, streamed before the text, not sent again after the trip.
  expect(types(chunks).filter((t) => t === "reasoning-start")).toHaveLength(1);
  expect(types(chunks).indexOf("reasoning-end")).toBeLessThan(types(chunks).indexOf("text-start"));
  const live = chunks.flatMap((c) => (c.type === "reasoning-delta" ? [c.delta] : [])).join("");
  expect(live).toBe(THOUGHT);
  expect(partsOf(await messageOf(chunks))).toEqual({ reasoning: [THOUGHT], text: [ANSWER] });
  // A reload reads the finished trip's reasoning from its record: whole, once, before the text, in the part it streamed in.
  expect(types(reloaded).filter((t) => t === "reasoning-start")).toHaveLength(1);
  expect(reloaded.find((c) => c.type === "reasoning-start")).toEqual({ type: "reasoning-start", id: "reasoning-1-1" });
  expect(types(reloaded).indexOf("reasoning-end")).toBeLessThan(types(reloaded).indexOf("text-start"));
  expect(partsOf(await messageOf(reloaded))).toEqual({ reasoning: [THOUGHT], text: [ANSWER] });
  // The browser transport's resume: the replay, less what the page has, adds nothing twice.
  const filter = new ReplayFilter(chunks.slice(0, chunks.findIndex((c) => c.type === "text-delta") + 1));
  const added = reloaded.flatMap((chunk) => filter.next(chunk) ?? []);
  const page = [...chunks.slice(0, chunks.findIndex((c) => c.type === "text-delta") + 1), ...added];
  expect(partsOf(await messageOf(page))).toEqual({ reasoning: [THOUGHT], text: [ANSWER] });
  // Resumed after the first text delta, once the trip is over (its reasoning no longer in flight): the rest of the text, nothing twice.
  expect(joined(resumed.events, "reasoning.delta")).toBe(THOUGHT);
  expect(joined(resumed.events, "text.delta")).toBe(ANSWER);
  expect(partsOf(await messageOf(resumed.chunks))).toEqual({ reasoning: [THOUGHT], text: [ANSWER] });
}

describe("reasoning streamed live", () => {
  it("through the heartbeats: stream() and the UI message stream get it while the model thinks, before the text, whole and once", async () => {
    await expectLiveReasoning(await streamThinkingRun(harness.client, "claude-reasoning-live", {}));
  });

  it("a failed attempt's reasoning is dropped at its trip.retry: the next attempt's reasoning streams alone", async () => {
    const first = "Squats again? No: knees.";
    const second = "Lunges spare the knees; deadlifts after.";
    const sawFirst = { stream: deferred(), ui: deferred() };
    const sawSecond = { stream: deferred(), ui: deferred() };
    const both = (saw: typeof sawFirst) => Promise.all([saw.stream.promise, saw.ui.promise]);
    const afterFirst = 3 + Math.ceil(first.length / CHUNK) + 2;
    const { result } = await onClaude(
      [
        // The first attempt thinks, then fails mid-stream (overloaded): the model call is retried.
        thinkingTurn(first, "unused", both(sawFirst), { failAfterEvents: afterFirst, failWith: "overloaded" }),
        thinkingTurn(second, ANSWER, both(sawSecond)),
      ],
      "claude-reasoning-retry",
      async (agent, taskQueue) => {
        const handle = await agent.start("Plan my leg day", { client: harness.client, taskQueue, streamText: true });
        const [events, { chunks }] = await Promise.all([
          collect(handle.stream(), (seen) => {
            if (joined(seen, "reasoning.delta", 1) === first) sawFirst.stream.resolve();
            if (joined(seen, "reasoning.delta", 2) === second) sawSecond.stream.resolve();
          }),
          collectUI(handle, (byPart) => {
            if (byPart.get("reasoning-1-1") === first) sawFirst.ui.resolve();
            if (byPart.get("reasoning-1-2") === second) sawSecond.ui.resolve();
          }),
        ]);
        const reloaded = (await readUIStream(handle.toUIMessageStreamResponse())).chunks;
        return { events, chunks, reloaded };
      },
    );
    const { events, chunks, reloaded } = result;
    const retry = events.findIndex((e) => e.type === "trip.retry");
    expect(events[retry]).toMatchObject({ trip: 1, attempt: 2 });
    expect(joined(events.slice(0, retry), "reasoning.delta")).toBe(first);
    expect(joined(events.slice(retry), "reasoning.delta", 1)).toBe(""); // nothing of the failed attempt after its retry
    expect(joined(events.slice(retry), "reasoning.delta", 2)).toBe(second);
    expect(joined(events, "text.delta")).toBe(ANSWER);
    // The UI drops the failed attempt's part (reset-step) and streams the next attempt's once.
    expect(types(chunks).indexOf("reset-step")).toBeGreaterThan(types(chunks).indexOf("reasoning-start"));
    expect(partsOf(await messageOf(chunks))).toEqual({ reasoning: [second], text: [ANSWER] });
    expect(partsOf(await messageOf(reloaded))).toEqual({ reasoning: [second], text: [ANSWER] });
  });

  it("a stream() of finished trips gets each answer's reasoning once, before its text, from model.answered", async () => {
    const first = "The plan needs a swap before I answer.";
    const { result } = await onClaude(
      [
        {
          reasoning: { text: first },
          toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }],
        },
        { reasoning: { text: THOUGHT }, text: ANSWER },
      ],
      "claude-reasoning-late",
      async (agent, taskQueue) => {
        const handle = await agent.start("Plan my leg day", { client: harness.client, taskQueue, streamText: true });
        await handle.result();
        return collect(handle.stream(), () => undefined);
      },
      {},
      { tools: [swapTool] },
    );
    const events = result;
    const answered = events.filter((e) => e.type === "model.answered");
    expect(answered.map((e) => e.type === "model.answered" && e.reasoning)).toEqual([first, THOUGHT]);
    for (const [trip, thought] of [
      [1, first],
      [2, THOUGHT],
    ] as const) {
      const ofTrip = events.filter((e) => "trip" in e && e.trip === trip);
      expect(joined(ofTrip, "reasoning.delta")).toBe(thought);
      const lastReasoning = ofTrip.findLastIndex((e) => e.type === "reasoning.delta");
      expect(lastReasoning).toBeLessThan(ofTrip.findIndex((e) => e.type === "model.answered"));
    }
    expect(joined(events, "text.delta")).toBe(ANSWER);
    expect(events.findLastIndex((e) => e.type === "reasoning.delta")).toBeLessThan(
      events.findIndex((e) => e.type === "text.delta"),
    );
  });

  it("a run that does not stream text has each answer's reasoning in its events, whole, once, before the text; the UI too", async () => {
    const { result } = await onClaude(
      [{ reasoning: { text: THOUGHT }, text: ANSWER }],
      "claude-reasoning-whole",
      async (agent, taskQueue) => {
        const handle = await agent.start("Plan my leg day", { client: harness.client, taskQueue });
        const live = collect(handle.stream(), () => undefined);
        await handle.result();
        const after = await collect(handle.stream(), () => undefined);
        const { chunks } = await readUIStream(handle.toUIMessageStreamResponse());
        return { live: await live, after, chunks };
      },
    );
    for (const events of [result.live, result.after]) {
      expect(
        events.filter((e) => e.type === "reasoning.delta").map((e) => e.type === "reasoning.delta" && e.text),
      ).toEqual([THOUGHT]);
      expect(events.findIndex((e) => e.type === "reasoning.delta")).toBeLessThan(
        events.findIndex((e) => e.type === "text.delta"),
      );
      expect(joined(events, "text.delta")).toBe(ANSWER);
    }
    expect(types(result.chunks).filter((t) => t === "reasoning-start")).toHaveLength(1);
    expect(types(result.chunks).indexOf("reasoning-end")).toBeLessThan(types(result.chunks).indexOf("text-start"));
    expect(partsOf(await messageOf(result.chunks))).toEqual({ reasoning: [THOUGHT], text: [ANSWER] });
  });

  describe("through Redis", () => {
    let redis: RedisServer;
    beforeAll(async () => {
      redis = await startRedisServer();
    });
    afterAll(() => redis.stop());

    it("stream() and the UI message stream get it from Redis (no describe() while the model answers), whole and once", async () => {
      const counted = await connectCountedClient(harness.address, { deltas: ai.deltas.redis({ url: redis.url }) });
      try {
        const seen = await streamThinkingRun(counted.client, "claude-reasoning-redis", {
          deltas: ai.deltas.redis({ url: redis.url }),
        });
        await expectLiveReasoning(seen);
        expect(counted.counts.count("DescribeWorkflowExecution")).toBe(0);
      } finally {
        await counted.close();
      }
    });
  });
});
