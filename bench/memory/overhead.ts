/**
 * `npm run bench:memory-overhead`: what memory adds to a run's per-trip overhead (issue 43's goal:
 * a run with memory within 1.2× the per-trip overhead of one without). One dev server, one worker
 * in-process, a scripted model and a scripted embedder on loopback, PGlite in-process. Each round
 * runs the same TRIPS-trip conversation (a tool call on each trip but the last) once without
 * memory and once with it (a user: one memory.recall before trip 1, one memory.remember after),
 * interleaved; per-trip time is the run's wall time over its trips. Prints a markdown row.
 */
import { performance } from "node:perf_hooks";
import { createOpenAI } from "@ai-sdk/openai";
import { z } from "zod";
import { ai } from "../../src/index.js";
import { createAgentWorker } from "../../src/worker.js";
import { startDevServer, startScriptedEmbeddings, startScriptedModel } from "../../src/testing/index.js";
import { percentile, round } from "../numbers.js";

const TRIPS = 5;
const ROUNDS = Number(process.env.ROUNDS ?? 20);

const server = await startDevServer({
  extraArgs: ["--dynamic-config-value", "history.transferProcessorMaxPollRPS=1000"],
  log: () => {},
});
const model = await startScriptedModel((request) => {
  const answered = request.body.messages.filter((m) => m.role === "assistant").length;
  return answered % TRIPS < TRIPS - 1 ? { toolCalls: [{ name: "log_set", arguments: { reps: answered } }] } : "Done.";
});
const embeddings = await startScriptedEmbeddings();
const store = ai.memory.pglite({ log: () => {} });
const logSet = ai.tool({ name: "log_set", input: z.object({ reps: z.number() }), execute: async () => ({ ok: true }) });
const gpt = ai.openai("gpt-test", { baseURL: model.baseURL });
const plain = ai.agent({ name: "overhead-plain", model: gpt, tools: [logSet], maxTrips: TRIPS });
const remembering = ai.agent({
  name: "overhead-memory",
  model: gpt,
  tools: [logSet],
  maxTrips: TRIPS,
  memory: ai.memory({
    store,
    embedder: createOpenAI({ baseURL: embeddings.baseURL, apiKey: "x" }).embeddingModel("e"),
  }),
});
const client = server.env.client;
const worker = await createAgentWorker({
  agents: [plain, remembering],
  connection: server.env.nativeConnection,
  taskQueue: "memory-overhead",
});
const perTrip = { plain: [] as number[], memory: [] as number[] };
await worker.runUntil(async () => {
  for (let round = -2; round < ROUNDS; round++) {
    // two warm-up rounds, not counted
    for (const [key, agent] of [
      ["plain", plain],
      ["memory", remembering],
    ] as const) {
      const started = performance.now();
      const result = await agent.run(`Log my sets, round ${round}`, {
        client,
        taskQueue: "memory-overhead",
        ...(key === "memory" ? { user: `athlete-${round % 5}` } : {}),
      });
      if (round >= 0) perTrip[key].push((performance.now() - started) / result.trips);
    }
  }
});
const p50 = (values: number[]) => percentile(values, 50);
const ratio = p50(perTrip.memory) / p50(perTrip.plain);
console.log("| runs | trips | per trip without memory (ms, p50) | with memory (ms, p50) | ratio | goal ≤ 1.2× |");
console.log("| --- | --- | --- | --- | --- | --- |");
console.log(
  `| ${ROUNDS} + ${ROUNDS} | ${TRIPS} | ${round(p50(perTrip.plain))} | ${round(p50(perTrip.memory))} | ${round(ratio)}× | ${ratio <= 1.2 ? "met" : "not met"} |`,
);
await Promise.all([model.close(), embeddings.close(), store.close()]);
await server.stop();
