/**
 * `npm run bench:servers` (`-- --quick` for fewer rounds): issue 44's goals for agents as servers.
 * The time a call through a protocol adds over `agent.run()` for a one-trip agent (goal: at most
 * 10 ms at the median, on loopback), in rounds interleaved with `agent.run()` so load falls on
 * both alike, judged on the bootstrap interval of the paired differences; and each protocol's own
 * checks (100 concurrent MCP calls on one handler with no error). Each protocol's rows are a
 * module of rows/, listed in ROWS. Writes bench-results/servers.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { randomUUID } from "node:crypto";
import { ai } from "../../src/index.js";
import { startScriptedModel } from "../../src/testing/index.js";
import { startBench } from "../lib.js";
import { markdownTable } from "../markdown-table.js";
import {
  bootstrapInterval,
  formatInterval,
  interleaveRounds,
  judgeInterval,
  median,
  type Goal,
} from "../stats/index.js";
import { a2aRows } from "./rows/a2a.js";
import { mcpRows } from "./rows/mcp.js";
import type { ServerRows, LatencySubject } from "./rows.js";

/** Every protocol's rows, in the order their subjects are timed in a round. */
const ROWS: ServerRows[] = [mcpRows, a2aRows];
const GOAL_ADDED_MS = 10;

const bench = await startBench();
const rounds = bench.quick ? 10 : 40;
const model = await startScriptedModel(() => "Hello.");
const agent = ai.agent({
  name: `servers-bench-${randomUUID().slice(0, 8)}`,
  model: ai.openai("gpt-test", { baseURL: model.baseURL }),
});
const taskQueue = `bench-${randomUUID()}`;
const worker = await ai.worker({
  agents: [agent],
  connection: bench.connection,
  taskQueue,
  workerOptions: { maxConcurrentWorkflowTaskExecutions: 128, maxConcurrentActivityTaskExecutions: 128 },
});
const running = worker.run();
try {
  const context = { client: bench.client, agent, taskQueue, quick: bench.quick };
  const started = [];
  for (const rows of ROWS) started.push(await rows.start(context));
  const baseline: LatencySubject = {
    label: "agent.run()",
    call: async (round) => void (await agent.run(`Hello #${round}`, { client: bench.client, taskQueue })),
  };
  const subjects = [baseline, ...started.flatMap((s) => s.subjects)];
  // A warm-up round of each (connections, caches), not counted.
  for (const subject of subjects) await subject.call(-1);
  const samples = await interleaveRounds(subjects, rounds, async (subject, round) => {
    const t0 = performance.now();
    await subject.call(round);
    return performance.now() - t0;
  });
  const goals: Goal[] = [];
  const table = subjects.map((subject, i) => {
    const row: Record<string, string | number> = {
      subject: subject.label,
      "p50 ms": median(Float64Array.from(samples[i]!)).toFixed(1),
    };
    if (i === 0) return { ...row, "added over agent.run(), ms (95% interval)": "" };
    const added = bootstrapInterval([samples[i]!, samples[0]!], (a, b) => median(a.map((x, k) => x - b[k]!)));
    goals.push({
      goal: `${subject.label} adds at most ${GOAL_ADDED_MS} ms over agent.run() (p50)`,
      figure: formatInterval(added, " ms", 1),
      status: judgeInterval(added, { atMost: GOAL_ADDED_MS }),
      interval: added,
    });
    return { ...row, "added over agent.run(), ms (95% interval)": formatInterval(added, "", 1) };
  });
  for (const s of started) goals.push(...(await s.checks()));
  for (const s of started) await s.close();
  const loadAverage = loadavg()[0]!;
  console.log(`\n${rounds} interleaved rounds of a one-trip agent; load average ${loadAverage.toFixed(2)}\n`);
  console.log(markdownTable(table));
  console.log();
  console.log(markdownTable(goals.map(({ goal, figure, status }) => ({ goal, figure, status }))));
  mkdirSync("bench-results", { recursive: true });
  writeFileSync(
    "bench-results/servers.json",
    JSON.stringify(
      { rounds, loadAverage, samples: Object.fromEntries(subjects.map((s, i) => [s.label, samples[i]])), goals },
      null,
      2,
    ),
  );
} finally {
  worker.shutdown();
  await running;
  await model.close();
  await bench.server.stop();
}
