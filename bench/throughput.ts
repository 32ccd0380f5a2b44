/**
 * Throughput: N runs of the compared conversation started at once against one worker (or several,
 * on one task queue), for each N, in one or more rounds per N. Each worker runs in a child process
 * (bench/throughput-worker.ts), so its RSS is its own; its peak (VmHWM from /proc/<pid>/status) is
 * reset before each round (with several workers, the figures are their sums). Latency is start
 * call → result.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleAgentWorkflows } from "../src/index.js";
import { withDeadline } from "./deadline.js";
import { bundleWorkflowCode } from "@temporalio/worker";
import { quietBundlerLogger } from "../src/workflow-bundle.js";
import { BARE, bareResult } from "./bare-activities.js";
import { lineChild } from "./line-child.js";
import { pidListeningOn, processCpuMs } from "./process-cpu.js";
import { percentile, round, type Bench } from "./lib.js";
import { interleaveRounds, median } from "./stats/index.js";
import type { PeerResult } from "./peer/workflows.js";
import {
  benchAgent,
  FINAL_ANSWER,
  inputFor,
  THROUGHPUT_WORKER_OPTIONS,
  TRIPS,
  type BenchExecution,
} from "./scenario.js";

/** One level's figures over its rounds: counts summed, rates the median of the rounds', latencies over every run. */
export interface ThroughputLevel {
  concurrentRuns: number;
  /** Rounds of `concurrentRuns` runs at this level (interleaved with the other subjects' rounds). */
  rounds: number;
  completed: number;
  errors: number;
  firstError?: string;
  /** The median round's wall time. */
  wallSeconds: number;
  /** The median of the rounds' runs/s. */
  runsPerSecond: number;
  /** Each round's runs/s, in round order (for intervals of ratios between subjects). */
  runsPerSecondByRound: number[];
  tripsPerSecond: number;
  latencyMs: { p50: number; p95: number; max: number };
  /** Idle: before the level's first round; peak: the highest of its rounds. */
  workerRssMiB: { idle: number; peak: number };
  /** The workers' CPU time (user + system) per trip of a completed run: the median round's. */
  workerCpuMsPerTrip?: number;
  /** Each round's worker CPU ms per trip, in round order, rounds with a failed run left out (absent: none without). */
  workerCpuMsPerTripByRound?: number[];
  /** The dev server's CPU time per trip (the median round's; absent where /proc does not tell). */
  serverCpuMsPerTrip?: number;
  /** The benchmark process's CPU time per trip: the Temporal client starting and awaiting runs, and the scripted model. */
  clientCpuMsPerTrip?: number;
}

/** One round of one level: its runs' latencies and failures, its wall time, its workers' RSS in KiB. */
interface LevelRound {
  latencies: number[];
  failures: Error[];
  wallSeconds: number;
  idleKiB: number;
  peakKiB: number;
  /** The workers' CPU time over the round, ms. */
  cpuMs: number;
  /** The dev server's and this process's CPU time over the round, ms. */
  serverCpuMs: number;
  clientCpuMs: number;
}

/**
 * A library in the throughput benchmark: ours (in one execution setting), a peer, or no library: a
 * bare Temporal workflow of the same shape (a model activity and a tool activity a trip, each
 * returning at once), the ceiling any library's activities can reach on the same server.
 */
export type ThroughputLibrary = "durable-agent" | "@temporalio/ai-sdk" | "@temporalio/openai-agents" | typeof BARE;

export interface ThroughputFigures {
  library: ThroughputLibrary;
  execution?: BenchExecution;
  worker: string;
  workerOptions: typeof THROUGHPUT_WORKER_OPTIONS;
  levels: ThroughputLevel[];
  /** `MaxListenersExceededWarning`s the subject's workers printed over every level. */
  listenerWarnings?: number;
}

const WORKER_SCRIPT = fileURLToPath(new URL("./throughput-worker.ts", import.meta.url));

/**
 * Options of `benchThroughput`: the levels (default 10 quick, else 50/200/1,000), the rounds at
 * each level (default 1), the worker processes (default 1), a time budget (no round of every
 * subject starts that would end after it, by the longest such round so far; at least one round per
 * level) and a directory for the workers' CPU profiles (`node --cpu-prof`, written when they stop).
 */
export interface ThroughputOptions {
  levels?: number[];
  rounds?: (concurrentRuns: number) => number;
  workers?: number;
  budgetMs?: number;
  /** Time kept out of the budget, before a level, for a later level (default none). */
  reserveMs?: (concurrentRuns: number) => number;
  /** How long a round's runs may take before they count as failed (default 15 minutes, 1 under --quick). */
  roundDeadlineMs?: (concurrentRuns: number) => number;
  cpuProfileDir?: string;
  /** Called after each round of each subject with its window on the monotonic clock (µs, as CPU profiles time their samples). */
  onRound?: (concurrentRuns: number, window: { startUs: number; endUs: number }) => void;
}

/** How the parent starts one run of a library and checks its result; the library's prebuilt workflow bundle. */
async function libraryUnderTest(
  bench: Pick<Bench, "client">,
  baseURL: string,
  library: ThroughputLibrary,
  execution: BenchExecution,
  taskQueue: string,
) {
  const input = inputFor(TRIPS);
  if (library === "durable-agent") {
    const agent = benchAgent(baseURL, "bench-trips", 1000, execution);
    return {
      code: (await bundleAgentWorkflows()).code,
      async run(deadline: number) {
        const handle = await agent.start(input, { client: bench.client, taskQueue });
        const result = await withDeadline(bench.client, deadline, () => handle.result());
        if (result.trips !== TRIPS || result.reply !== FINAL_ANSWER)
          throw new Error(`run ended after ${result.trips} trips (${result.stopReason})`);
      },
    };
  }
  if (library === BARE) {
    const { code } = await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL("./server-settings-workflows.ts", import.meta.url)),
      logger: quietBundlerLogger,
    });
    return {
      code,
      async run(deadline: number) {
        const handle = await bench.client.workflow.start("activityTrips", {
          taskQueue,
          workflowId: `throughput-${randomUUID()}`,
          args: [TRIPS],
        });
        const result = await withDeadline(bench.client, deadline, () => handle.result());
        if (result !== bareResult(TRIPS)) throw new Error(`the bare workflow returned ${String(result)}`);
      },
    };
  }
  const { workflowType, bundle } =
    library === "@temporalio/ai-sdk"
      ? { workflowType: "peerTrips", bundle: (await import("./peer.js")).preparePeer(baseURL).bundle }
      : {
          workflowType: "openaiAgentsTrips",
          bundle: (await import("./peer-openai-agents.js")).prepareOpenAIAgentsPeer(baseURL).bundle,
        };
  return {
    code: (await bundle).code,
    async run(deadline: number) {
      const handle = await bench.client.workflow.start(workflowType, {
        taskQueue,
        workflowId: `throughput-${randomUUID()}`,
        args: [input, TRIPS],
      });
      const result = (await withDeadline(bench.client, deadline, () => handle.result())) as PeerResult;
      if (result.steps !== TRIPS || result.text !== FINAL_ANSWER)
        throw new Error(`run ended after ${result.steps} steps`);
    },
  };
}

/** One library (in one execution setting) of the throughput benchmark. */
export interface ThroughputSubject {
  library: ThroughputLibrary;
  execution?: BenchExecution;
  /** Whether the subject runs at this level (default: at every level). */
  atLevel?: (concurrentRuns: number) => boolean;
}

/** A worker child process, and its CPU time so far. */
interface WorkerChild {
  process: ChildProcess;
  cpuMs(): Promise<number>;
  listenerWarnings(): Promise<number>;
}

/** A subject with its workers up, and its figures so far. */
interface RunningSubject {
  atLevel: (concurrentRuns: number) => boolean;
  subject: Awaited<ReturnType<typeof libraryUnderTest>>;
  children: WorkerChild[];
  figures: ThroughputFigures;
  peakResets: boolean;
}

/**
 * Throughput of each subject at each level, in interleaved rounds: every subject's worker is up
 * before the first level and stays up to the end, and each level runs round 1 of every subject,
 * then round 2 of every subject, and so on, before the next level, so load that comes and goes
 * falls on all of them alike and round i of one subject pairs with round i of another. `onLevel`
 * gets the figures so far after each level.
 */
export async function benchThroughput(
  bench: ThroughputBench,
  baseURL: string,
  subjects: ThroughputSubject[],
  options: ThroughputOptions & { onLevel?: (figures: ThroughputFigures[]) => void } = {},
): Promise<ThroughputFigures[]> {
  const levels = options.levels ?? (bench.quick ? [10] : [50, 200, 1000]);
  // The server's CPU is read each round where /proc tells which process it is (the dev server, or the stack's).
  const serverPid = pidListeningOn(bench.address);
  const dir = mkdtempSync(join(tmpdir(), "bench-bundle-"));
  const running: RunningSubject[] = [];
  try {
    for (const [i, { library, execution = "activities", atLevel = () => true }] of subjects.entries()) {
      const codePath = join(dir, `workflows-${i}.js`);
      const taskQueue = `bench-throughput-${randomUUID()}`;
      const subject = await libraryUnderTest(bench, baseURL, library, execution, taskQueue);
      writeFileSync(codePath, subject.code);
      const workerEnv = {
        TEMPORAL_ADDRESS: bench.address,
        BENCH_TASK_QUEUE: taskQueue,
        BENCH_MODEL_URL: baseURL,
        BENCH_WORKFLOW_BUNDLE: codePath,
        BENCH_LIBRARY: library,
        BENCH_EXECUTION: execution,
      };
      const children = await Promise.all(
        Array.from({ length: options.workers ?? 1 }, () => startWorker(workerEnv, options.cpuProfileDir)),
      );
      const workers =
        children.length === 1
          ? "one child process"
          : `${children.length} child processes on one task queue (RSS summed)`;
      const figures: ThroughputFigures = {
        library,
        ...(library === "durable-agent" ? { execution } : {}),
        worker: `${workers} (node --import tsx) for all levels, prebuilt workflow bundle`,
        workerOptions: THROUGHPUT_WORKER_OPTIONS,
        levels: [],
      };
      running.push({ atLevel, subject, children, figures, peakResets: true });
    }
    const budgetEnds = options.budgetMs === undefined ? Infinity : Date.now() + options.budgetMs;
    let longestRoundMs = 0; // of every subject, at the level so far (at a new level: the last level's, scaled by its runs)
    let lastLevel = 0;
    for (const [l, n] of levels.entries()) {
      longestRoundMs = lastLevel ? (longestRoundMs * n) / lastLevel : 0;
      lastLevel = n;
      const reserved = levels.slice(l + 1).reduce((sum, later) => sum + (options.reserveMs?.(later) ?? 0), 0);
      const active = running.filter((entry) => entry.atLevel(n));
      const rounds: LevelRound[][] = active.map(() => []);
      for (let r = 0; r < (options.rounds?.(n) ?? 1); r++) {
        if (r > 0 && Date.now() + longestRoundMs > budgetEnds - reserved) break;
        const started = Date.now();
        const round = await interleaveRounds(active, 1, async (entry) => {
          const startUs = Number(process.hrtime.bigint() / 1000n);
          const deadlineMs = options.roundDeadlineMs?.(n) ?? (bench.quick ? 60_000 : 900_000);
          const sample = await runRound(entry, n, Date.now() + deadlineMs, serverPid);
          options.onRound?.(n, { startUs, endUs: Number(process.hrtime.bigint() / 1000n) });
          return sample;
        });
        for (const [i, [sample]] of round.entries()) rounds[i]!.push(sample!);
        longestRoundMs = Math.max(r === 0 ? 0 : longestRoundMs, Date.now() - started);
      }
      for (const [i, entry] of active.entries()) entry.figures.levels.push(levelFigures(n, rounds[i]!));
      options.onLevel?.(running.map((r) => r.figures));
    }
    for (const entry of running)
      for (const child of entry.children)
        entry.figures.listenerWarnings = (entry.figures.listenerWarnings ?? 0) + (await child.listenerWarnings());
  } finally {
    await Promise.all(running.flatMap((r) => r.children.map((child) => stopWorker(child.process))));
    rmSync(dir, { recursive: true, force: true });
  }
  return running.map(({ figures, peakResets }) => {
    const peak = peakResets
      ? "the highest VmHWM after a round of the level, reset before each round"
      : "VmHWM after the level (could not be reset: peak since the worker started)";
    return {
      ...figures,
      worker: `${figures.worker}; RSS from /proc/<pid>/status: idle = VmRSS before the level's first round, peak = ${peak}`,
    };
  });
}

/** What the throughput benchmark needs of the bench: a client and the server's address. */
export type ThroughputBench = Pick<Bench, "client" | "quick"> & { address: string };

/** One round: N runs of one subject started at once; its workers' RSS before and at peak; CPU of workers, server and client. */
async function runRound(
  entry: RunningSubject,
  n: number,
  deadline: number,
  serverPid: number | undefined,
): Promise<LevelRound> {
  const { subject, children } = entry;
  const sumKiB = (field: "VmRSS" | "VmHWM") =>
    children.reduce((sum, child) => sum + memoryKiB(child.process.pid!, field), 0);
  const sumCpuMs = async () => (await Promise.all(children.map((child) => child.cpuMs()))).reduce((a, b) => a + b, 0);
  // The same workers for every round; their peak RSS is reset before each (Linux: "5" > /proc/<pid>/clear_refs).
  for (const child of children) entry.peakResets &&= resetPeakRss(child.process.pid!);
  const idleKiB = sumKiB("VmRSS");
  const cpuBefore = await sumCpuMs();
  const serverCpuMs = () => (serverPid === undefined ? NaN : processCpuMs(serverPid));
  const clientCpuMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const [serverBefore, clientBefore] = [serverCpuMs(), clientCpuMs()];
  const started = performance.now();
  const outcomes = await Promise.allSettled(
    Array.from({ length: n }, async () => {
      const t = performance.now();
      await subject.run(deadline);
      return performance.now() - t;
    }),
  );
  const wallSeconds = (performance.now() - started) / 1000;
  return {
    wallSeconds,
    cpuMs: (await sumCpuMs()) - cpuBefore,
    serverCpuMs: serverCpuMs() - serverBefore,
    clientCpuMs: clientCpuMs() - clientBefore,
    latencies: outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : [])),
    failures: outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason as Error] : [])),
    idleKiB,
    peakKiB: sumKiB("VmHWM"),
  };
}

/** A level's figures from its rounds. */
function levelFigures(n: number, rounds: LevelRound[]): ThroughputLevel {
  const latencies = rounds.flatMap((r) => r.latencies);
  const failures = rounds.flatMap((r) => r.failures);
  const runsPerSecondByRound = rounds.map((r) => round(r.latencies.length / r.wallSeconds, 2));
  const runsPerSecond = median(runsPerSecondByRound);
  // Only rounds whose every run completed: the CPU of failed runs would be charged to the others' trips.
  const clean = rounds.filter((r) => r.failures.length === 0 && r.latencies.length > 0);
  const perTrip = (ms: (r: LevelRound) => number) => clean.map((r) => round(ms(r) / (r.latencies.length * TRIPS), 2));
  const workerCpuMsPerTripByRound = perTrip((r) => r.cpuMs);
  const serverCpu = perTrip((r) => r.serverCpuMs).filter((ms) => !Number.isNaN(ms));
  return {
    concurrentRuns: n,
    rounds: rounds.length,
    completed: latencies.length,
    errors: failures.length,
    ...(failures[0] ? { firstError: String(failures[0].message ?? failures[0]).slice(0, 300) } : {}),
    wallSeconds: round(median(rounds.map((r) => r.wallSeconds))),
    runsPerSecond: round(runsPerSecond),
    runsPerSecondByRound,
    tripsPerSecond: round(runsPerSecond * TRIPS, 0),
    latencyMs: {
      p50: round(percentile(latencies, 50), 0),
      p95: round(percentile(latencies, 95), 0),
      max: round(Math.max(...latencies), 0),
    },
    workerRssMiB: {
      idle: round(rounds[0]!.idleKiB / 1024, 0),
      peak: round(Math.max(...rounds.map((r) => r.peakKiB)) / 1024, 0),
    },
    ...(workerCpuMsPerTripByRound.length
      ? { workerCpuMsPerTrip: round(median(workerCpuMsPerTripByRound), 2), workerCpuMsPerTripByRound }
      : {}),
    ...(serverCpu.length ? { serverCpuMsPerTrip: round(median(serverCpu), 2) } : {}),
    ...(clean.length ? { clientCpuMsPerTrip: round(median(perTrip((r) => r.clientCpuMs)), 2) } : {}),
  };
}

async function startWorker(env: Record<string, string>, cpuProfileDir?: string): Promise<WorkerChild> {
  // The same export conditions as this process (tsx was started with the package's source condition).
  const conditions = process.execArgv.filter((arg) => arg.startsWith("--conditions"));
  const profile = cpuProfileDir ? ["--cpu-prof", `--cpu-prof-dir=${cpuProfileDir}`] : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", ...conditions, WORKER_SCRIPT], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const { next, cpuMs } = lineChild(child, `the throughput worker (${env.BENCH_LIBRARY})`);
  await next("ready");
  return {
    process: child,
    cpuMs,
    async listenerWarnings() {
      const answer = next("warnings ");
      child.stdin!.write("warnings\n");
      return Number((await answer).slice("warnings ".length));
    },
  };
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Resets a process's peak RSS (VmHWM) to its current RSS; false where the kernel does not allow it. */
function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** A memory figure of a process in KiB, from /proc/<pid>/status (Linux). */
function memoryKiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) : NaN;
}
