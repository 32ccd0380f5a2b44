/**
 * The figures of `npm run bench:watchers`, from its rounds: one summary per cell (transport, W),
 * each figure the mean over the rounds with its 95% interval; the table; and the goals of issue 33,
 * each judged on its whole interval (bench/stats: met, not met, or undecided).
 */
import { round as roundTo, percentile } from "../numbers.js";
import {
  judgeExact,
  judgeInterval,
  mean,
  meanInterval,
  meanRatioInterval,
  type Goal,
  type Interval,
} from "../stats/index.js";
import type { CellRound, HistoryCount } from "./measure.js";
import { TRANSPORT_LABEL, type Transport, type WatchersPlan } from "./plan.js";
import { groupRequests } from "./server-metrics.js";

/** One cell over its rounds. */
export interface CellSummary {
  transport: Transport;
  watchersPerRun: number;
  watchers: number;
  rounds: number;
  /** Frontend requests per second per run (all operations), and by group. */
  requestsPerSecondPerRun: Interval;
  describesPerSecondPerRun: number;
  queriesPerSecondPerRun: number;
  historyReadsPerSecondPerRun: number;
  heartbeatsPerSecondPerRun: number;
  /** The client processes' own Temporal calls per second per run while the answers streamed (t0 → t1): all of them reads. */
  clientCallsPerSecondPerRun: number;
  historyEventsPerRun: number;
  /** Workflow tasks that timed out or failed, per run (load: each adds events that streaming does not). */
  workflowTaskRetriesPerRun: number;
  /** Each round's p50 and p95 over its watchers, ms. */
  firstDeltaP50Ms: Interval;
  firstDeltaP95Ms: Interval;
  lastDeltaLagP50Ms: Interval;
  lastDeltaLagP95Ms: Interval;
  /** CPU time per second of the window: the client processes together, and the worker (1 = one core). */
  clientCpuCores: number;
  workerCpuCores: number;
  unfinished: number;
  wrongText: number;
  rejected: number;
  errors: string[];
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** The mean over the rounds with its interval; no estimate (and nothing decided) when no round gave the figure. */
const intervalOf = (values: number[]): Interval =>
  values.length ? meanInterval(values) : { estimate: NaN, low: NaN, high: NaN, rounds: 0, level: 0.95 };

/** Per second of a round's window, per run. */
const perRunSecond = (count: number, round: CellRound, runs: number) => count / (round.windowMs / 1000) / runs;

/** The rounds of each cell, in the order of `transports` × `watchersPerRun`. */
export function summarize(rounds: CellRound[], plan: WatchersPlan, transports: Transport[]): CellSummary[] {
  return transports.flatMap((transport) =>
    plan.watchersPerRun.flatMap((watchersPerRun): CellSummary[] => {
      const cell = rounds.filter((r) => r.transport === transport && r.watchersPerRun === watchersPerRun);
      if (cell.length === 0) return [];
      const groups = cell.map((r) => groupRequests(r.requests));
      const rate = (key: keyof (typeof groups)[number]) =>
        roundTo(mean(cell.map((r, i) => perRunSecond(groups[i]![key], r, plan.runs))), 1);
      const each = (values: (r: CellRound) => number[], p: number) =>
        intervalOf(cell.map((r) => percentile(values(r), p)).filter(Number.isFinite));
      return [
        {
          transport,
          watchersPerRun,
          watchers: plan.runs * watchersPerRun,
          rounds: cell.length,
          requestsPerSecondPerRun: intervalOf(cell.map((r, i) => perRunSecond(groups[i]!.total, r, plan.runs))),
          describesPerSecondPerRun: rate("describes"),
          queriesPerSecondPerRun: rate("queries"),
          historyReadsPerSecondPerRun: rate("historyReads"),
          heartbeatsPerSecondPerRun: rate("heartbeats"),
          clientCallsPerSecondPerRun: roundTo(
            mean(cell.map((r) => sum(Object.values(r.clientCalls)) / (r.answerWindowMs / 1000) / plan.runs)),
            1,
          ),
          historyEventsPerRun: roundTo(mean(cell.flatMap((r) => r.histories.map((h) => h.events))), 2),
          workflowTaskRetriesPerRun: roundTo(
            mean(cell.flatMap((r) => r.histories.map((h) => h.workflowTaskRetries))),
            2,
          ),
          firstDeltaP50Ms: each((r) => r.firstDeltaMs, 50),
          firstDeltaP95Ms: each((r) => r.firstDeltaMs, 95),
          lastDeltaLagP50Ms: each((r) => r.lastDeltaLagMs, 50),
          lastDeltaLagP95Ms: each((r) => r.lastDeltaLagMs, 95),
          clientCpuCores: roundTo(sum(cell.map((r) => r.clientCpuMs)) / sum(cell.map((r) => r.answerWindowMs)), 2),
          workerCpuCores: roundTo(sum(cell.map((r) => r.workerCpuMs)) / sum(cell.map((r) => r.answerWindowMs)), 2),
          unfinished: sum(cell.map((r) => r.unfinished)),
          wrongText: sum(cell.map((r) => r.wrongText)),
          rejected: sum(cell.map((r) => r.rejected)),
          errors: [...new Set(cell.flatMap((r) => r.errors))],
        },
      ];
    }),
  );
}

/** `estimate [low–high]`, rounded ("n/a" for no estimate). */
export function formatInterval(interval: Interval, digits = 0): string {
  if (!Number.isFinite(interval.estimate)) return "n/a";
  const r = (n: number) => roundTo(n, digits).toLocaleString("en-US");
  return `${r(interval.estimate)} [${r(interval.low)}–${r(interval.high)}]`;
}

type Row = Record<string, string | number>;

/** One row per cell. */
export function watchersRows(summaries: CellSummary[]): Row[] {
  return summaries.map((s) => ({
    transport: TRANSPORT_LABEL[s.transport],
    "W/run": s.watchersPerRun,
    watchers: s.watchers,
    rounds: s.rounds,
    "Temporal req/s per run": formatInterval(s.requestsPerSecondPerRun, 1),
    "describes/s/run": s.describesPerSecondPerRun,
    "queries/s/run": s.queriesPerSecondPerRun,
    "history reads/s/run": s.historyReadsPerSecondPerRun,
    "heartbeats/s/run": s.heartbeatsPerSecondPerRun,
    "client reads/s/run while answering": s.clientCallsPerSecondPerRun,
    "events/run": s.historyEventsPerRun,
    "workflow task retries/run": s.workflowTaskRetriesPerRun,
    "first delta p50 ms": formatInterval(s.firstDeltaP50Ms),
    "first delta p95 ms": formatInterval(s.firstDeltaP95Ms),
    "last-delta lag p50 ms": formatInterval(s.lastDeltaLagP50Ms),
    "last-delta lag p95 ms": formatInterval(s.lastDeltaLagP95Ms),
    "client CPU (cores)": s.clientCpuCores,
    "worker CPU (cores)": s.workerCpuCores,
    "unfinished / wrong text / rejected": `${s.unfinished} / ${s.wrongText} / ${s.rejected}`,
  }));
}

/** Goal thresholds of issue 33. */
export const GOALS = {
  requestsRatio: 1.1,
  firstDeltaP50Ms: 100,
  lastDeltaLagP95Ms: 250,
  watchers: 1000,
} as const;

/**
 * The goals of issue 33. `rounds` gives the per-round figures the paired ratio needs;
 * `unstreamedEvents` the history events of unstreamed runs of the same answer.
 */
export function watchersGoals(
  rounds: CellRound[],
  summaries: CellSummary[],
  plan: WatchersPlan,
  unstreamed: HistoryCount[],
): Goal[] {
  const rates = (transport: Transport, w: number) =>
    rounds
      .filter((r) => r.transport === transport && r.watchersPerRun === w)
      .sort((a, b) => a.round - b.round)
      .map((r) => perRunSecond(groupRequests(r.requests).total, r, plan.runs));
  const ratioGoal = (transport: Transport): Goal => {
    const [at10, at1] = [rates(transport, 10), rates(transport, 1)];
    const measured = at10.length > 0 && at10.length === at1.length;
    const goal = `${TRANSPORT_LABEL[transport]}: Temporal requests/s per run at W = 10 ≤ ${GOALS.requestsRatio}× those at W = 1`;
    if (!measured) return { goal, figure: "not measured", status: "not measured" };
    const ratio = meanRatioInterval(at10, at1);
    return {
      goal,
      figure: `${formatInterval(ratio, 2)}×`,
      status: judgeInterval(ratio, { atMost: GOALS.requestsRatio }),
      interval: ratio,
    };
  };
  const thousand = summaries.find((s) => s.transport === "redis" && s.watchers >= GOALS.watchers);
  const redisMeasured = summaries.some((s) => s.transport === "redis");
  const notAtThousand = redisMeasured
    ? `not measured (fewer than ${GOALS.watchers} watchers)`
    : "not measured (Redis transport not run)";
  // Workflow tasks counted as 3 events each, whether they ran once or timed out and ran again (load, not streaming).
  const baseline = mean(unstreamed.map((h) => h.normalized));
  const added = summaries.map((s) => {
    const perRound = rounds
      .filter((r) => r.transport === s.transport && r.watchersPerRun === s.watchersPerRun)
      .map((r) => mean(r.histories.map((h) => h.normalized)) - baseline);
    return { s, perRound, added: intervalOf(perRound) };
  });
  const shipped: Transport[] = (["long-poll", "redis"] as Transport[]).filter((t) =>
    summaries.some((s) => s.transport === t),
  );
  return [
    ...shipped.map(ratioGoal),
    {
      goal: `Redis: first delta p50 ≤ ${GOALS.firstDeltaP50Ms} ms at ${GOALS.watchers.toLocaleString("en-US")} watchers`,
      figure: thousand ? `${formatInterval(thousand.firstDeltaP50Ms)} ms` : notAtThousand,
      status: thousand ? judgeInterval(thousand.firstDeltaP50Ms, { atMost: GOALS.firstDeltaP50Ms }) : "not measured",
      ...(thousand ? { interval: thousand.firstDeltaP50Ms } : {}),
    },
    {
      goal: `Redis: last-delta lag p95 ≤ ${GOALS.lastDeltaLagP95Ms} ms at ${GOALS.watchers.toLocaleString("en-US")} watchers`,
      figure: thousand ? `${formatInterval(thousand.lastDeltaLagP95Ms)} ms` : notAtThousand,
      status: thousand
        ? judgeInterval(thousand.lastDeltaLagP95Ms, { atMost: GOALS.lastDeltaLagP95Ms })
        : "not measured",
      ...(thousand ? { interval: thousand.lastDeltaLagP95Ms } : {}),
    },
    {
      goal: "0 added history events per streamed trip (streamed and watched vs the same answer unstreamed, each workflow task as 3 events), every transport and W",
      figure: unstreamed.length
        ? `unstreamed ${roundTo(baseline, 2)} events/run; added per trip: ${added
            .map(({ s, added }) => `${s.transport} W=${s.watchersPerRun} ${formatInterval(added, 2)}`)
            .join(", ")}`
        : "not measured",
      // An exact count, not a noisy figure: one added event in any round of any cell is a miss,
      // and a cell measured in one round (the describe loop at 1,000 watchers) counts as well.
      status: unstreamed.length
        ? judgeExact(added.every(({ perRound }) => perRound.every((n) => n <= 0)))
        : "not measured",
    },
    {
      goal: "every watcher reads the whole answer and run.finished (every transport and W)",
      figure: summaries
        .map((s) => `${s.transport} W=${s.watchersPerRun}: ${s.unfinished} unfinished, ${s.wrongText} wrong`)
        .join("; "),
      status: judgeExact(summaries.length ? summaries.every((s) => s.unfinished === 0 && s.wrongText === 0) : null),
    },
  ];
}
