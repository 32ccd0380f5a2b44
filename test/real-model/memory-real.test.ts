/**
 * Issue 43: memory across sessions on the real model. Chat goes to the suite's llama-server; the
 * embeddings come from a second llama-server on the same GGUF started with `--embeddings --pooling
 * mean` (see llama-server.ts: the chat server's settings stay as they are), reached through
 * the AI SDK's OpenAI-compatible provider; the store is PGlite with pgvector, in memory. The
 * assertions are about what the library guarantees (what was recalled, for whom, and what the
 * model was given), never about the words the model chooses.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { Worker } from "@temporalio/worker";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { ai, type RunResult, type TraceEvent } from "../../src/index.js";
import { connectHarness, taskQueue, testWorker, type Harness } from "../support/harness.js";
import { installRealModel } from "./install.js";
import { startLlamaServer, type LlamaServer } from "./llama-server.js";

const FACT = "My left knee is injured from running downhill.";
const QUESTION = "Which exercise should I avoid on leg day?";

let harness: Harness;
let embeddingServer: LlamaServer;
let worker: Worker;
let running: Promise<void>;
let coach: ReturnType<typeof ai.agent>;
const queue = taskQueue();
const store = ai.memory.pglite({ log: () => {} });

beforeAll(async () => {
  harness = await connectHarness();
  embeddingServer = await startLlamaServer(await installRealModel(undefined, () => {}), { embeddings: true });
  const llama = createOpenAICompatible({ name: "llama-cpp-embeddings", baseURL: embeddingServer.baseURL });
  coach = ai.agent({
    name: "real-memory-coach",
    model: ai.openai(inject("realModelId"), {
      baseURL: inject("realModelBaseURL"),
      temperature: 0,
      seed: 7,
      extraBody: { max_tokens: 24 },
    }),
    instructions: "You are a fitness coach. Answer in one short sentence.",
    memory: ai.memory({
      store,
      embedder: llama.embeddingModel(embeddingServer.modelId),
      recall: { topK: 1, messageRange: 1 },
    }),
  });
  worker = await testWorker(harness, [coach], { taskQueue: queue }); // opens the store before it polls
  running = worker.run();
});

afterAll(async () => {
  worker?.shutdown();
  await running;
  await Promise.all([store.close(), embeddingServer?.stop()]);
  await harness?.close();
});

const recalledOf = (result: RunResult) =>
  result.trace.find((e): e is Extract<TraceEvent, { type: "memory.recalled" }> => e.type === "memory.recalled");
/** The system message memory gave the model: the run's messages are what its model requests were made of. */
const memoryMessageOf = (result: RunResult) =>
  result.messages.find((m) => m.role === "system" && String(m.content).startsWith("Memory of this user"))?.content;

it("session 1 of alice tells a fact; her session 2 gets it recalled (embedded by llama.cpp, found by pgvector) in its model request; bob's run at the same moment does not", async () => {
  expect(await store.open()).toEqual({ search: "pgvector" });
  const first = coach.session(`alice-1-${Date.now()}`, { client: harness.client, taskQueue: queue, user: "alice" });
  expect(recalledOf(await first.send(FACT))?.recalled).toEqual([]); // nothing stored yet
  await first.end(); // its turn's messages are stored before the session ends
  const stored = await store.inspect("alice");
  expect(stored.messages.filter((m) => m.run === first.workflowId).map((m) => m.text)).toContain(FACT);

  const second = coach.session(`alice-2-${Date.now()}`, { client: harness.client, taskQueue: queue, user: "alice" });
  const [alice, bob] = await Promise.all([
    second.send(QUESTION),
    coach.run(QUESTION, { client: harness.client, taskQueue: queue, user: "bob" }),
  ]);
  await second.end();
  const recalled = recalledOf(alice)!.recalled;
  expect(recalled.map((m) => m.text)).toContain(FACT);
  expect(new Set(recalled.map((m) => m.run))).toEqual(new Set([first.workflowId])); // alice's one earlier session
  expect(memoryMessageOf(alice)).toContain(`user: ${FACT}`);
  expect(recalledOf(bob)?.recalled).toEqual([]);
  expect(String(memoryMessageOf(bob) ?? "")).not.toContain("knee");
});
