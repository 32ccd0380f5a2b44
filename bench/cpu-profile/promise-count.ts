/**
 * `npm run bench:profile -- --promises [--execution activities]`: how many promises our workflow
 * code creates per trip. The SDK's promise hook (`@temporalio/worker` lib/workflow/vm-shared.js)
 * takes a source-mapped stack trace for every promise created in workflow context, so each one
 * costs worker CPU. Runs the benchmark's conversation once at 2 trips and once at `TRIPS` trips on a
 * dev server, then replays each history in this process (a replay runs the workflow in-process, in
 * debug mode) under a `v8.promiseHooks` hook that counts the promises created in a workflow's VM
 * context and places each at the first frame of the stack outside `@temporalio`. A trip's count is
 * the difference of the two runs over the difference of their trips (what a run's start and end
 * cost drops out). Replay is deterministic: the counts are the same on every run.
 */
import v8 from "node:v8";
import { Worker } from "@temporalio/worker";
import type { History } from "@temporalio/common/lib/proto-utils.js";
import { startScriptedModel } from "../../src/testing/index.js";
import { bundleAgentWorkflows } from "../../src/index.js";
import { startBench, withBenchWorker } from "../lib.js";
import { BENCH_EXECUTIONS, benchAgent, benchScript, inputFor, TRIPS, type BenchExecution } from "../scenario.js";

/** What a replay created: promises in workflow context, by where our code (or the SDK) created them. */
interface Count {
  total: number;
  bySite: Map<string, number>;
}

/** The first frame of a mapped workflow stack that is not the SDK's or the hook's own: `fn (file:line)`. */
function siteOf(stack: string): string {
  const frames = stack.split("\n").slice(1);
  const ours = frames.find((f) => !/@temporalio|node:internal|promise-count|<anonymous>/.test(f)) ?? frames[0] ?? "?";
  return ours
    .trim()
    .replace(/^at /, "")
    .replace(/\(.*\/(src|bench)\//, "($1/");
}

/** Replays the history, counting the promises created in a workflow's VM context. */
async function countReplay(bundle: Awaited<ReturnType<typeof bundleAgentWorkflows>>, history: History): Promise<Count> {
  const count: Count = { total: 0, bySite: new Map() };
  const stop = v8.promiseHooks.onInit((promise: Promise<unknown>) => {
    const realm = promise.constructor.constructor as FunctionConstructor;
    if (realm === Function || !realm("return globalThis.__TEMPORAL_ACTIVATOR__")()) return;
    count.total++;
    const ContextError = realm("return globalThis.Error")() as ErrorConstructor;
    const site = siteOf(new ContextError().stack ?? "");
    count.bySite.set(site, (count.bySite.get(site) ?? 0) + 1);
  });
  try {
    await Worker.runReplayHistory({ workflowBundle: bundle, replayName: "promise-count" }, history);
  } finally {
    stop();
  }
  return count;
}

/** Runs the conversation at 2 and `TRIPS` trips, replays both, and prints the promises per trip. */
export async function countPromises(argv: string[]): Promise<void> {
  const arg = argv.indexOf("--execution");
  const execution = (arg > 0 ? argv[arg + 1] : "activities") as BenchExecution;
  if (!BENCH_EXECUTIONS.includes(execution)) throw new Error(`--execution: one of ${BENCH_EXECUTIONS.join(", ")}`);
  const model = await startScriptedModel(benchScript);
  const bench = await startBench();
  const tripsOf = [2, TRIPS] as const;
  let histories: History[];
  try {
    const agent = benchAgent(model.baseURL, "bench-promises", 1000, execution);
    histories = await withBenchWorker(bench, [agent], async (taskQueue) => {
      const fetched: History[] = [];
      for (const trips of tripsOf) {
        const handle = await agent.start(inputFor(trips), { client: bench.client, taskQueue });
        await handle.result();
        fetched.push(await handle.workflow.fetchHistory());
      }
      return fetched;
    });
  } finally {
    await bench.connection.close();
    await bench.server.stop();
    await model.close();
  }
  const bundle = await bundleAgentWorkflows();
  await countReplay(bundle, histories[0]!); // warm-up: the bundle's first load
  const [few, many] = [await countReplay(bundle, histories[0]!), await countReplay(bundle, histories[1]!)];
  const perTrip = (a: number, b: number) => Math.round((100 * (b - a)) / (tripsOf[1] - tripsOf[0])) / 100;
  console.log(
    `Promises created in workflow context (${execution}): ${few.total} in a ${tripsOf[0]}-trip run, ${many.total} in a ${tripsOf[1]}-trip run: ${perTrip(few.total, many.total)} per trip`,
  );
  const rows = [...many.bySite.entries()]
    .map(([site, n]) => ({ site, perTrip: perTrip(few.bySite.get(site) ?? 0, n), n }))
    .sort((a, b) => b.perTrip - a.perTrip || b.n - a.n)
    .map(({ site, perTrip, n }) => ({ "created at": site, "per trip": perTrip, [`${tripsOf[1]}-trip run`]: n }));
  console.table(rows);
}
