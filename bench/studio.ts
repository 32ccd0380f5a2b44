/**
 * `npm run bench:studio` (`-- --quick` for 1,000 runs, `--runs <n>` for n; `--seed started` to seed
 * without running them, below): issue 34's goal that the studio pages through 10,000 runs at most
 * 1 s a page. Starts 10,000 cheap runs (one model call answering "Hello.", scripted) on a dev
 * server with search attributes, 32 starts at a time, and times the seeding; then serves the
 * studio over them and times `GET /api/runs` page by page through all of them (the page's 50 a
 * page, filtered, and 500 a page for information), with p50/p95/max per page and the part of each
 * the visibility store took (the studio's `Server-Timing` header). Writes
 * bench-results/studio.json with the goals. Figures on a shared machine are noisy: the load
 * average is recorded beside them.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import pLimit from "p-limit";
import { ai } from "../src/index.js";
import type { RunsResponse } from "../src/studio/index.js";
import { WORKFLOW_NAME } from "../src/core/constants.js";
import { SEARCH_ATTRIBUTES } from "../src/core/search-attributes.js";
import { startScriptedModel } from "../src/testing/index.js";
import { percentile, round, startBench } from "./lib.js";

const bench = await startBench();
const arg = (flag: string) => (process.argv.includes(flag) ? process.argv[process.argv.indexOf(flag) + 1] : undefined);
const runs = Number(arg("--runs") ?? (bench.quick ? 1_000 : 10_000));
/**
 * `completed` (default): each run runs to its answer on the worker. `started`: the runs are started
 * with the agent's search attributes and no worker takes them (they stay running): the same rows
 * for the visibility store to page through, seeded in a fraction of the time on a busy machine.
 */
const seed = arg("--seed") ?? "completed";
if (seed !== "completed" && seed !== "started") throw new Error(`--seed is completed or started (got ${seed})`);
const GOAL_MS = 1000;
/** Starts in flight at once: more only queues in the dev server on 2 cores. */
const START_CONCURRENCY = 32;
const model = await startScriptedModel(() => "Hello.");
const name = `studio-bench-${randomUUID().slice(0, 8)}`;
const agent = ai.agent({ name, model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
const taskQueue = `bench-${randomUUID()}`;
const worker = await ai.worker({
  agents: [agent],
  connection: bench.connection,
  taskQueue,
  searchAttributes: true,
  workerOptions: { maxConcurrentWorkflowTaskExecutions: 64, maxConcurrentActivityTaskExecutions: 64 },
});
const running = worker.run();

interface Paging {
  label: string;
  pages: number;
  rows: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  totalMs: number;
  /** The visibility store's part of a page (listWorkflowExecutions), from the studio's Server-Timing header. */
  visibilityP50Ms: number;
  visibilityP95Ms: number;
  /** The machine's one-minute load average after paging. */
  loadAverage: number;
  /** Every page's time, in order. */
  pageMs: number[];
}

try {
  // Seeding: start every run (32 starts in flight), then wait until visibility lists them all completed.
  const seedStarted = Date.now();
  const limit = pLimit(START_CONCURRENCY);
  const idle = `bench-no-worker-${randomUUID()}`;
  await Promise.all(
    Array.from({ length: runs }, (_, i) =>
      limit((): Promise<unknown> =>
        seed === "completed"
          ? agent.start(`Hello #${i}`, {
              client: bench.client,
              taskQueue,
              workflowId: `${name}-${i}`,
              noWorkerWarningAfter: false,
            })
          : bench.client.workflow.start(WORKFLOW_NAME, {
              args: [{ agent: name, messages: [{ role: "user", content: `Hello #${i}` }] }],
              taskQueue: idle,
              workflowId: `${name}-${i}`,
              typedSearchAttributes: [
                { key: SEARCH_ATTRIBUTES.agent, value: name },
                { key: SEARCH_ATTRIBUTES.version, value: agent.version },
              ],
            }),
      ),
    ),
  );
  const startMs = Date.now() - seedStarted;
  const listed = `DurableAgentName = "${name}" AND ExecutionStatus = "${seed === "completed" ? "Completed" : "Running"}"`;
  for (let last = -1; ;) {
    const { count } = await bench.client.workflow.count(listed);
    if (count >= runs) break;
    if (count !== last) console.log(`seeding: ${count} of ${runs} runs ${seed}`);
    last = count;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const seedMs = Date.now() - seedStarted;
  console.log(`seeded ${runs} runs (${seed}) in ${round(seedMs / 1000)} s (starts took ${round(startMs / 1000)} s)`);

  const studio = await ai.studio({
    client: bench.client,
    port: 0,
    dataDir: mkdtempSync(join(tmpdir(), "studio-bench-")),
  });
  const base = `http://127.0.0.1:${studio.port}`;
  const pageThrough = async (label: string, query: string): Promise<Paging> => {
    const times: number[] = [];
    const visibility: number[] = [];
    let rows = 0;
    let token: string | undefined;
    const started = Date.now();
    do {
      const at = performance.now();
      const response = await fetch(`${base}/api/runs?${query}${token ? `&pageToken=${token}` : ""}`);
      const page = (await response.json()) as RunsResponse & { error?: string };
      if (!response.ok) throw new Error(`GET /api/runs?${query}: ${response.status} ${page.error}`);
      times.push(performance.now() - at);
      visibility.push(Number(/visibility;dur=([\d.]+)/.exec(response.headers.get("server-timing") ?? "")?.[1]));
      rows += page.runs.length;
      token = page.nextPageToken;
    } while (token);
    const figures = {
      label,
      pages: times.length,
      rows,
      p50Ms: round(percentile(times, 50)),
      p95Ms: round(percentile(times, 95)),
      maxMs: round(Math.max(...times)),
      totalMs: Date.now() - started,
      visibilityP50Ms: round(percentile(visibility, 50)),
      visibilityP95Ms: round(percentile(visibility, 95)),
      loadAverage: round(loadavg()[0]!),
      pageMs: times.map((t) => Math.round(t)),
    };
    const { pageMs: _pages, ...shown } = figures;
    console.log(JSON.stringify(shown));
    return figures;
  };
  let paging: Paging[];
  try {
    paging = [
      await pageThrough("all runs, 50 a page (the page's default)", `agent=${name}`),
      seed === "completed"
        ? await pageThrough(
            "filtered: agent, status and stop reason, 50 a page",
            `agent=${name}&status=completed&stopReason=answered`,
          )
        : await pageThrough(
            "filtered: agent, version and status, 50 a page",
            `agent=${name}&version=${agent.version}&status=running`,
          ),
      await pageThrough("all runs, 500 a page (for information: the page asks for 50)", `agent=${name}&pageSize=500`),
    ];
  } finally {
    await studio.close();
  }
  const defaultPages = paging[0]!;
  const goals = [
    {
      goal: `the studio pages through ${runs.toLocaleString("en")} runs at most ${GOAL_MS / 1000} s a page (GET /api/runs, 50 a page)`,
      figure: `${defaultPages.pages} pages: p50 ${defaultPages.p50Ms} ms, p95 ${defaultPages.p95Ms} ms, max ${defaultPages.maxMs} ms (visibility p50 ${defaultPages.visibilityP50Ms} ms; load ${defaultPages.loadAverage} on ${availableParallelism()} cores)`,
      met: defaultPages.rows === runs && defaultPages.maxMs <= GOAL_MS,
    },
    ...paging.slice(1, 2).map((p) => ({
      goal: `${p.label}: at most ${GOAL_MS / 1000} s a page`,
      figure: `${p.pages} pages, ${p.rows} rows: p50 ${p.p50Ms} ms, p95 ${p.p95Ms} ms, max ${p.maxMs} ms`,
      met: p.rows === runs && p.maxMs <= GOAL_MS,
    })),
  ];
  console.table(goals.map((g) => ({ goal: g.goal, figure: g.figure, status: g.met ? "met" : "not met" })));
  mkdirSync("bench-results", { recursive: true });
  writeFileSync(
    "bench-results/studio.json",
    JSON.stringify(
      {
        studio: {
          runs,
          seeding: {
            startsMs: startMs,
            seedMs,
            runsPerSecond: round(runs / (seedMs / 1000)),
            startConcurrency: START_CONCURRENCY,
          },
          paging,
          cores: availableParallelism(),
          loadAverage: round(loadavg()[0]!),
        },
        goals,
      },
      null,
      2,
    ) + "\n",
  );
  console.log("bench: studio paging and goals in bench-results/studio.json");
} finally {
  worker.shutdown();
  await running;
  await model.close();
  await bench.connection.close();
  await bench.server.stop();
}
