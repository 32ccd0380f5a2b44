/** Streaming figures: first model chunk → client's first delta, and the history streaming adds per trip. */
import { z } from "zod";
import { ai } from "../src/index.js";
import { startScriptedModel, type ScriptedTurn } from "../src/testing/index.js";
import { historySize, percentile, round, withBenchWorker, type Bench } from "./lib.js";

const TEXT = "Lunges work the same muscles as squats with less load on the knees. ".repeat(4);

export async function benchStreaming(bench: Bench) {
  const runs = bench.quick ? 3 : 30;
  const model = await startScriptedModel(() => TEXT, { chunkSize: 16 });
  const agent = ai.agent({ name: "bench-stream", model: ai.openai("gpt-bench", { baseURL: model.baseURL }) });
  const latencies: number[] = [];
  await withBenchWorker(bench, [agent], async (taskQueue) => {
    for (let i = 0; i < runs; i++) {
      const before = model.requests.length;
      const stream = await agent.stream("Tell me about lunges", { client: bench.client, taskQueue });
      let firstDeltaAt: number | undefined;
      for await (const event of stream) if (event.type === "text.delta") firstDeltaAt ??= Date.now();
      latencies.push(firstDeltaAt! - model.requests[before]!.firstChunkAt!);
    }
  });
  await model.close();

  // History cost: the same 3-trip conversation with token streaming off and on.
  const trips = 3;
  const script = (): ScriptedTurn[] => [
    { text: TEXT, toolCalls: [{ name: "log", arguments: {} }] },
    { text: TEXT, toolCalls: [{ name: "log", arguments: {} }] },
    TEXT,
  ];
  const sizes: Record<"off" | "on", { events: number; bytes: number }> = { off: { events: 0, bytes: 0 }, on: { events: 0, bytes: 0 } };
  for (const mode of ["off", "on"] as const) {
    const scripted = await startScriptedModel(script(), { chunkSize: 16 });
    const log = ai.tool({ name: "log", input: z.object({}), execute: async () => ({ ok: true }) });
    const costAgent = ai.agent({ name: "bench-stream-cost", model: ai.openai("gpt-bench", { baseURL: scripted.baseURL }), tools: [log] });
    sizes[mode] = await withBenchWorker(bench, [costAgent], async (taskQueue) => {
      const handle = await costAgent.start("Log twice", { client: bench.client, taskQueue, streamText: mode === "on" });
      for await (const _event of handle.stream());
      return historySize(handle.workflow);
    });
    await scripted.close();
  }
  return {
    firstDeltaLatencyMs: { runs, p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
    streamingAddsPerTrip: {
      events: round((sizes.on.events - sizes.off.events) / trips),
      bytes: round((sizes.on.bytes - sizes.off.bytes) / trips, 0),
    },
    historyPerTrip: { off: { events: round(sizes.off.events / trips), bytes: round(sizes.off.bytes / trips, 0) }, on: { events: round(sizes.on.events / trips), bytes: round(sizes.on.bytes / trips, 0) } },
  };
}
