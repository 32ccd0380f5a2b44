/**
 * model.call's conversation: a worker that produced the messages itself (the answer, the tool
 * results) sends them without the run-page query, checked by the length and digest the workflow
 * passes; another worker (here: after the first one shut down mid-run) reads them. Either way the
 * model sees the same conversation.
 */
import { readFileSync } from "node:fs";
import { defaultPayloadConverter } from "@temporalio/common";
import type { WorkflowHandle } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { AgentOptionsError, ai } from "../src/index.js";
import { ConversationCache, DEFAULT_CONVERSATION_CACHE_BYTES } from "../src/activities/conversation-cache.js";
import { DigestChain } from "../src/core/conversation-digest.js";
import type { Message } from "../src/core/types.js";
import { createAgentWorker } from "../src/worker.js";
import { startScriptedModel, type ScriptedTurn } from "../src/testing/index.js";
import { connectHarness, taskQueue, testWorker, withWorker, type Harness } from "./support/harness.js";
import { byAgent, testAgent } from "./support/subagent-helpers.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const script = (): ScriptedTurn[] => [
  {
    toolCalls: [
      { name: "log_set", arguments: { reps: 10 } },
      { name: "log_set", arguments: { reps: 8 } },
    ],
  },
  { toolCalls: [{ name: "log_set", arguments: { reps: 6 } }] },
  "Three sets logged.",
];

/** Per model.call of a run, in trip order: whether the worker read part of the conversation from the run. */
async function conversationReads(handle: WorkflowHandle): Promise<boolean[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  const types = new Map(
    events.map((e) => [Number(e.eventId), e.activityTaskScheduledEventAttributes?.activityType?.name]),
  );
  return events.flatMap((e) => {
    const done = e.activityTaskCompletedEventAttributes;
    if (!done || types.get(Number(done.scheduledEventId)) !== "model.call") return [];
    const output = defaultPayloadConverter.fromPayload<{ conversationRead?: true }>(done.result!.payloads![0]!);
    return [output.conversationRead === true];
  });
}

function agentFor(baseURL: string, gate?: () => Promise<void>) {
  const logSet = ai.tool({
    name: "log_set",
    input: z.object({ reps: z.number() }),
    execute: async ({ reps }, { trip }) => {
      if (trip === 1) await gate?.();
      return { logged: reps };
    },
  });
  return ai.agent({ name: "cache-coach", model: ai.openai("gpt-test", { baseURL }), tools: [logSet] });
}

describe("model.call's conversation", () => {
  it("is held by the worker that produced it and read by another, and the model sees the same messages both ways", async () => {
    // One worker throughout: every trip's conversation is held (the input went with the first call).
    const modelA = await startScriptedModel(script());
    const agentA = agentFor(modelA.baseURL);
    const held = await withWorker(harness, [agentA], async ({ taskQueue }) => {
      const handle = await agentA.start("Log my three sets", { client: harness.client, taskQueue });
      expect((await handle.result()).reply).toBe("Three sets logged.");
      return conversationReads(handle.workflow);
    });
    expect(held).toEqual([false, false, false]);

    // The first worker shuts down during trip 1's tool calls; a second one (its own cache) takes over.
    const modelB = await startScriptedModel(script());
    let toolStarted!: () => void;
    const started = new Promise<void>((resolve) => (toolStarted = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const agentB = agentFor(modelB.baseURL, () => {
      toolStarted();
      return released;
    });
    const queue = taskQueue();
    const first = await testWorker(harness, [agentB], { taskQueue: queue });
    const firstRunning = first.run();
    const handle = await agentB.start("Log my three sets", { client: harness.client, taskQueue: queue });
    await started;
    first.shutdown(); // stops polling; the running tool calls finish
    release();
    await firstRunning;
    await withWorker(harness, [agentB], async () => expect((await handle.result()).reply).toBe("Three sets logged."), {
      taskQueue: queue,
    });
    // Trip 2 ran on the second worker, which held nothing of the run: it read the conversation. Trip 3 it produced itself.
    expect(await conversationReads(handle.workflow)).toEqual([false, true, false]);

    const sent = (model: typeof modelA) => model.requests.map((r) => r.body.messages);
    expect(sent(modelB)).toHaveLength(3);
    expect(sent(modelB)).toEqual(sent(modelA));
    await modelA.close();
    await modelB.close();
  });

  it("stays held after a handoff with an inputFilter: the next agent's tool results are kept where its model calls look", async () => {
    const logSet = ai.tool({
      name: "log_set",
      input: z.object({ reps: z.number() }),
      execute: async ({ reps }) => ({ logged: reps }),
    });
    const model = await startScriptedModel(
      byAgent({
        "cache-triage": [{ toolCalls: [{ name: "transfer_to_cache-logger", arguments: {} }] }],
        "cache-logger": [
          { toolCalls: [{ name: "log_set", arguments: { reps: 10 } }] },
          { toolCalls: [{ name: "log_set", arguments: { reps: 8 } }] },
          "Two sets logged.",
        ],
      }),
    );
    const logger = testAgent("cache-logger", model.baseURL, { tools: [logSet] });
    const triage = testAgent("cache-triage", model.baseURL, {
      handoffs: [{ agent: logger, inputFilter: (messages) => messages.filter((m) => m.role === "user") }],
    });
    const reads = await withWorker(harness, [triage], async ({ taskQueue }) => {
      const handle = await triage.start("Log my sets", { client: harness.client, taskQueue });
      expect(await handle.result()).toMatchObject({ reply: "Two sets logged.", agent: "cache-logger" });
      return conversationReads(handle.workflow);
    });
    await model.close();
    // One worker throughout: no model call reads the conversation from the run, before or after the filtered handoff.
    expect(reads).toEqual([false, false, false, false]);
  });
});

describe("the worker's conversation cache is bounded in bytes", () => {
  const answer = (kilobytes: number) =>
    ({ role: "assistant", content: "x".repeat(kilobytes * 1024) }) as Parameters<ConversationCache["answered"]>[1];

  it("lets the least recently used conversations go once their messages pass maxBytes, whatever their count", () => {
    const cache = new ConversationCache(1024 * 1024);
    cache.answered({ runId: "a" }, answer(400));
    cache.answered({ runId: "b" }, answer(400));
    expect(cache.bytes).toBeGreaterThan(800 * 1024);
    cache.answered({ runId: "a" }, answer(400)); // a is used again: b is now the oldest
    cache.answered({ runId: "c" }, answer(400));
    // Three would pass 1 MiB: b, the least recently used, went.
    expect(cache.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(cache.bytes).toBeGreaterThan(800 * 1024);
    cache.toolFinished(
      { runId: "c" },
      { id: "call-1", name: "look", arguments: "{}" },
      { status: "ok", output: "y".repeat(300 * 1024) },
    );
    expect(cache.bytes).toBeLessThanOrEqual(1024 * 1024);
  });

  it("holds none of a conversation larger than maxBytes, and the default is 256 MiB", () => {
    const cache = new ConversationCache(100 * 1024);
    cache.answered({ runId: "big" }, answer(200));
    expect(cache.bytes).toBe(0);
    expect(DEFAULT_CONVERSATION_CACHE_BYTES).toBe(256 * 1024 * 1024);
  });

  it("a worker with conversationCacheBytes that is not a whole number of bytes is an AgentOptionsError naming it", async () => {
    for (const bad of [-1, 1.5, Number.NaN]) {
      const error = await createAgentWorker({ agents: [], conversationCacheBytes: bad }).catch((e: unknown) => e);
      expect(AgentOptionsError.isInstance(error)).toBe(true);
      expect((error as AgentOptionsError).field).toBe("conversationCacheBytes");
    }
  });
});

describe("the conversation's digest, computed in the workflow and in the worker", () => {
  it("is the same for the same messages from one version to the next: a worker checks a run's digest whichever build computed it", () => {
    const messages: Message[] = [
      { role: "user", content: "Record 3 steps, one at a time." },
      { role: "assistant", content: null, toolCalls: [{ id: "call_1", name: "record_step", arguments: '{"step":1}' }] },
      { role: "tool", toolCallId: "call_1", name: "record_step", content: '{"recorded":1}' },
      { role: "assistant", content: "Grüße, all steps are recorded. ✓" },
    ];
    // The value the digest had before its loop stopped reading `Math` a character at a time.
    expect(new DigestChain().extend(messages)).toEqual({ length: 4, digest: "40d5fa3b87ea8f5d" });
    const chain = new DigestChain();
    chain.extend(messages.slice(0, 2));
    expect(chain.extendJson(messages.slice(2).map((m) => JSON.stringify(m))).digest).toBe("40d5fa3b87ea8f5d");
  });

  it("runs in a workflow bundle built from source as the build ships it: ES2022, no ES2017 helpers for spreads and private fields", () => {
    const bundle = readFileSync(inject("workflowBundlePath"), "utf8");
    expect(bundle).toContain("this.#h1"); // DigestChain's private field, as written
    expect(bundle).not.toMatch(/function _(object_spread|class_private_field_get)\(/);
  });
});
