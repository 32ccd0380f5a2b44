/**
 * How long the soak's worker kills froze the work they hit (issue 41: the answer goes on within
 * 5 s of a worker's death). For each model request a killed worker left unanswered (its connection
 * closed by the client, within a moment of the kill, before the answer was served), two figures:
 * from the kill to the same request asked again (the model call's retry), and, for a streamed run,
 * to the next text delta its watchers saw of a later attempt. Pure: the soak records, this reads.
 */
import type { Fault } from "./faults.js";
import type { SubscriberLog } from "./scenarios.js";

/** The goal: the answer goes on within this long of a worker's death. */
export const RESUME_GOAL_MS = 5_000;
/** A request whose connection closed within this long after a kill was cut by it. */
const KILL_WINDOW_MS = 1_500;

/** One request to the soak's model, as the model saw it. */
export interface ModelCallLog {
  /** The run's key (a sub-agent's requests carry their caller's), if the request has one. */
  key: string | undefined;
  /** The pid of the worker process that sent it (its API key names it), if known. */
  worker: number | undefined;
  /** A streamed answer (it takes seconds: a worker kill can land in it). */
  streamed: boolean;
  /** The same call's requests (its retries) share this: the conversation's length and its last message. */
  call: string;
  arrivedAt: number;
  /** When its connection closed (epoch ms). */
  closedAt?: number;
  /** The whole answer was served (its usage was written). */
  served: boolean;
  /** The model's own fault (a 503, a cut) ended it: not the client's doing. */
  faulted: boolean;
}

/** Kill-to-resume figures, ms: p50 and max over the calls the kills cut. */
export interface ResumeFigure {
  samples: number;
  p50: number | null;
  max: number | null;
}

/** The soak's kill-to-resume figures. */
export interface KillToResume {
  /** Worker kills injected. */
  kills: number;
  /** Model calls the kills cut (a kill with none in flight cut none). */
  cutCalls: number;
  /** From the kill to the cut call's retry reaching the model. */
  retried: ResumeFigure;
  /** From the kill to the next text delta of a later attempt that a watcher of the run saw (streamed runs). */
  nextDelta: ResumeFigure;
  /** Cut calls never asked again (their run went on otherwise, or ended): listed, not judged. */
  notRetried: number;
}

const figure = (values: number[]): ResumeFigure => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    samples: sorted.length,
    p50: sorted.length ? sorted[Math.ceil(sorted.length / 2) - 1]! : null,
    max: sorted.length ? sorted.at(-1)! : null,
  };
};

/**
 * The kill-to-resume figures of a soak that began at `began` (epoch ms): its faults, the model's
 * request log, and each run's watchers by run key.
 */
export function killToResume(
  began: number,
  faults: readonly Fault[],
  calls: readonly ModelCallLog[],
  watchers: ReadonlyMap<string, readonly SubscriberLog[]>,
): KillToResume {
  const kills = faults
    .filter((f) => f.kind === "worker-kill" && f.injectedMs !== undefined && !f.error)
    .map((f) => f.killedAt ?? began + f.injectedMs!);
  const retried: number[] = [];
  const nextDelta: number[] = [];
  let cutCalls = 0;
  let notRetried = 0;
  for (const cut of calls) {
    if (cut.served || cut.faulted || cut.closedAt === undefined || cut.key === undefined) continue;
    const killedAt = kills.findLast((k) => k <= cut.closedAt! && cut.closedAt! - k <= KILL_WINDOW_MS);
    if (killedAt === undefined || cut.arrivedAt > killedAt) continue;
    cutCalls += 1;
    const retry = calls.find((c) => c.key === cut.key && c.call === cut.call && c.arrivedAt > cut.arrivedAt);
    if (retry) retried.push(retry.arrivedAt - killedAt);
    else notRetried += 1;
    const seen = (watchers.get(cut.key) ?? [])
      .map((watcher) => firstDeltaOfALaterAttempt(watcher, killedAt))
      .filter((at): at is number => at !== undefined);
    if (seen.length) nextDelta.push(Math.min(...seen) - killedAt);
  }
  return { kills: kills.length, cutCalls, retried: figure(retried), nextDelta: figure(nextDelta), notRetried };
}

/** When a watcher first saw a delta, after `killedAt`, of an attempt later than the ones it saw of that trip before. */
function firstDeltaOfALaterAttempt(watcher: SubscriberLog, killedAt: number): number | undefined {
  const before = watcher.deltas.filter((d) => d.at !== undefined && d.at <= killedAt);
  const last = before.at(-1);
  if (!last) return undefined;
  const later = watcher.deltas.find(
    (d) => d.at !== undefined && d.at > killedAt && d.trip === last.trip && d.attempt > last.attempt,
  );
  return later?.at;
}
