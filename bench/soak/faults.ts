/**
 * The soak's fault driver: a schedule drawn from the seed (one fault every 5-20 s, each with its
 * kind and duration), run for the whole window; faults overlap, except that one component is
 * broken by one fault at a time (a fault on a busy component waits for it). Each fault is logged
 * with its time when it is injected and when it is repaired. With Redis deltas, the Redis faults
 * have a schedule of their own (one every 15-40 s), drawn from a stream of its own, so a seed's
 * other faults are the same with and without Redis.
 */
import type { Stack } from "../../deploy/stack/index.js";
import type { ManagedProcess } from "../../deploy/stack/processes.js";
import type { RedisServer } from "../../src/testing/redis-server.js";
import type { SoakModel } from "./model.js";
import type { Prng } from "./prng.js";
import type { SubscriberLog } from "./scenarios.js";

/** The kinds of fault, with how often each is drawn. */
export const FAULT_MIX = {
  "worker-kill": 3,
  "history-kill": 2,
  "server-restart": 1,
  "postgres-stop": 2,
  "model-503": 2,
  "model-cut": 2,
  "model-stall": 2,
  "mcp-kill": 2,
  "subscriber-pause": 2,
} as const;
/** The kinds of Redis fault (the soak with Redis deltas), with how often each is drawn. */
export const REDIS_FAULT_MIX = {
  "redis-kill": 1,
  "redis-pause": 1,
} as const;
export type FaultKind = keyof typeof FAULT_MIX | keyof typeof REDIS_FAULT_MIX;

/** One fault of the schedule, and what happened when it ran. */
export interface Fault {
  kind: FaultKind;
  /** When it is due, ms after the soak began. */
  dueMs: number;
  /** How long the fault lasts where it has a duration (a stop, a burst, a pause), ms. */
  durationMs: number;
  injectedMs?: number;
  repairedMs?: number;
  /** A worker kill: when the SIGKILL was sent (epoch ms; the kill may wait for a streamed answer after its injection). */
  killedAt?: number;
  detail?: string;
  error?: string;
}

/** The component each kind breaks: faults on one component do not overlap. */
const COMPONENT: Record<FaultKind, string> = {
  "worker-kill": "workers",
  "history-kill": "server",
  "server-restart": "server",
  "postgres-stop": "postgres",
  "model-503": "model",
  "model-cut": "model-stream",
  "model-stall": "model-stream",
  "mcp-kill": "mcp",
  "subscriber-pause": "subscribers",
  "redis-kill": "redis",
  "redis-pause": "redis",
};

/** Draws the schedule for a window of `windowMs`. */
export function planFaults(rng: Prng, windowMs: number): Fault[] {
  const faults: Fault[] = [];
  for (let at = rng.int(5_000, 20_000); at < windowMs; at += rng.int(5_000, 20_000)) {
    const kind = rng.pick(FAULT_MIX);
    const durationMs =
      kind === "postgres-stop"
        ? rng.int(2_000, 10_000)
        : kind === "model-503"
          ? rng.int(2_000, 8_000)
          : kind === "subscriber-pause"
            ? rng.int(3_000, 8_000)
            : rng.int(500, 3_000);
    faults.push({ kind, dueMs: at, durationMs });
  }
  return faults;
}

/** Draws the Redis faults' schedule for a window of `windowMs`: one every 15-40 s; Redis down for 1-5 s, or frozen for 2-6 s. */
export function planRedisFaults(rng: Prng, windowMs: number): Fault[] {
  const faults: Fault[] = [];
  for (let at = rng.int(10_000, 30_000); at < windowMs; at += rng.int(15_000, 40_000)) {
    const kind = rng.pick(REDIS_FAULT_MIX);
    faults.push({ kind, dueMs: at, durationMs: kind === "redis-kill" ? rng.int(1_000, 5_000) : rng.int(2_000, 6_000) });
  }
  return faults;
}

/** What the driver breaks. */
export interface FaultTargets {
  stack: Stack;
  model: SoakModel;
  mcp: ManagedProcess;
  subscribers: Set<SubscriberLog>;
  /** The Redis of the answer deltas (the stack's), if the soak runs with it. */
  redis: RedisServer | undefined;
  /** Starts a worker process to replace a killed one. */
  addWorker(): Promise<ManagedProcess>;
  /** `--kill-mid-answer`: a worker kill takes the worker whose answer is streaming (waiting up to 15 s for one). */
  killMidAnswer: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the schedule from `began` (epoch ms); resolves when every fault has been repaired. */
export async function runFaults(
  faults: Fault[],
  targets: FaultTargets,
  rng: Prng,
  began: number,
  log: (line: string) => void,
): Promise<void> {
  const busy = new Map<string, Promise<void>>();
  const now = () => Date.now() - began;
  const stamp = (ms: number) =>
    `${String(Math.floor(ms / 60_000)).padStart(2, "0")}:${((ms % 60_000) / 1000).toFixed(1).padStart(4, "0")}`;
  const running: Promise<void>[] = [];
  for (const fault of faults) {
    await sleep(Math.max(0, fault.dueMs - now()));
    const component = COMPONENT[fault.kind];
    const choice = rng.next(); // drawn in schedule order, whatever the timing
    const run = (async () => {
      while (busy.has(component)) await busy.get(component);
      const done = (async () => {
        fault.injectedMs = now();
        try {
          fault.detail = await inject(fault, targets, choice);
        } catch (error) {
          fault.error = (error as Error).message.slice(0, 300);
        }
        fault.repairedMs = now();
        log(
          `${stamp(fault.injectedMs)} fault ${fault.kind}${fault.detail ? ` (${fault.detail})` : ""}, repaired at ${stamp(fault.repairedMs)}${fault.error ? `; ERROR ${fault.error}` : ""}`,
        );
      })();
      busy.set(component, done);
      await done;
      busy.delete(component);
    })();
    running.push(run);
  }
  await Promise.all(running);
}

/** Breaks the component and repairs it; returns what it did. `choice` in [0, 1) picks among candidates. */
async function inject(
  fault: Fault,
  { stack, model, mcp, subscribers, redis, addWorker, killMidAnswer }: FaultTargets,
  choice: number,
): Promise<string> {
  switch (fault.kind) {
    case "worker-kill": {
      // With --kill-mid-answer, the worker whose answer is streaming (waiting up to 15 s for one), else any.
      const streaming = killMidAnswer ? await streamingWorker(stack.workers, model, 15_000) : undefined;
      const alive = stack.workers.filter((w) => w.running);
      const victim = streaming ?? alive[Math.floor(choice * alive.length)];
      if (!victim) throw new Error("no worker running");
      const pid = victim.pid;
      fault.killedAt = Date.now();
      await victim.stop("SIGKILL");
      // As a supervisor would (the compose file's `restart: unless-stopped`): a replacement that
      // exits while starting (it cannot reach the server while PostgreSQL is stopped) is started again.
      const failed: string[] = [];
      for (;;) {
        try {
          const replacement = await addWorker();
          return `SIGKILL ${victim.name} pid ${pid}${streaming ? " mid-answer" : ""}; ${replacement.name} pid ${replacement.pid} serving${failed.length ? ` (after ${failed.join(", ")} exited while starting)` : ""}`;
        } catch (error) {
          failed.push(String((error as Error).message.split(" ")[0]));
          if (failed.length >= 10) throw error;
          await sleep(2_000);
        }
      }
    }
    case "history-kill": {
      await stack.server.process("history").stop("SIGKILL");
      await sleep(fault.durationMs);
      await stack.server.startService("history");
      await stack.server.waitUntilServing();
      return `SIGKILL the history service, started again after ${fault.durationMs} ms`;
    }
    case "server-restart": {
      await stack.server.stop("SIGTERM");
      await stack.server.start();
      return "SIGTERM every server process, started again";
    }
    case "postgres-stop": {
      await stack.postgres.stopInBackground();
      await sleep(fault.durationMs);
      await stack.postgres.startInBackground();
      return `stopped for ${fault.durationMs} ms`;
    }
    case "model-503": {
      model.faults.burstUntil = Date.now() + fault.durationMs;
      await sleep(fault.durationMs);
      return `503 to every request for ${fault.durationMs} ms`;
    }
    case "model-cut": {
      model.faults.cuts += 3;
      return "the next 3 streamed answers cut after 2 chunks";
    }
    case "model-stall": {
      model.faults.stalls += 2;
      return "the next 2 streamed answers stall 5 s after 2 chunks";
    }
    case "mcp-kill": {
      const pid = mcp.pid;
      await mcp.stop("SIGKILL");
      mcp.start();
      await mcp.waitForLine(/listening/);
      return `SIGKILL pid ${pid}; pid ${mcp.pid} listening`;
    }
    case "subscriber-pause": {
      // Streamed runs last seconds: wait up to 30 s for a subscriber to be reading.
      const waitUntil = Date.now() + 30_000;
      while (subscribers.size === 0 && Date.now() < waitUntil) await sleep(250);
      const live = [...subscribers];
      const target = live[Math.floor(choice * live.length)];
      if (!target) return "no subscriber reading for 30 s: nothing paused";
      target.pausedUntil = Date.now() + fault.durationMs;
      target.pauses += 1;
      await sleep(fault.durationMs);
      return `a subscriber paused for ${fault.durationMs} ms`;
    }
    case "redis-kill": {
      if (!redis) throw new Error("the soak runs without Redis");
      await redis.kill();
      await sleep(fault.durationMs);
      await redis.restart();
      return `SIGKILL redis-server, started again (empty) on ${redis.url} after ${fault.durationMs} ms`;
    }
    case "redis-pause": {
      if (!redis) throw new Error("the soak runs without Redis");
      redis.pause();
      await sleep(fault.durationMs);
      redis.resume();
      return `SIGSTOP redis-server for ${fault.durationMs} ms, then SIGCONT`;
    }
  }
}

/** A running worker with a streamed answer in flight at the model, waiting up to `waitMs` for one. */
async function streamingWorker(
  workers: ManagedProcess[],
  model: SoakModel,
  waitMs: number,
): Promise<ManagedProcess | undefined> {
  const until = Date.now() + waitMs;
  for (;;) {
    const pids = new Set(model.calls.filter((c) => c.streamed && c.closedAt === undefined).map((c) => c.worker));
    const streaming = workers.find((w) => w.running && pids.has(w.pid));
    if (streaming || Date.now() >= until) return streaming;
    await sleep(100);
  }
}
