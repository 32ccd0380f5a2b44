/**
 * The pure parts of `npm run bench:watchers` (bench/watchers/), on made-up figures: no servers.
 * The dev server's request counters as Prometheus text, percentiles, where watchers are placed,
 * and goals judged on their whole interval by bench/stats (whose rounds and intervals
 * test/bench-stats.test.ts tests). The benchmark itself needs a dev server and
 * minutes of CPU: `npm run bench:watchers`.
 */
import { describe, expect, it } from "vitest";
import { percentile } from "../bench/numbers.js";
import { methodOf } from "../bench/watchers/call-counter.js";
import { countHistory, type CellRound } from "../bench/watchers/measure.js";
import { answerText, placeWatchers, type Transport, type WatchersPlan } from "../bench/watchers/plan.js";
import { formatInterval, summarize, watchersGoals } from "../bench/watchers/report.js";
import { MIN_ROUNDS_TO_DECIDE } from "../bench/stats/index.js";
import { groupRequests, parseFrontendRequests, requestsBetween } from "../bench/watchers/server-metrics.js";

const EXPOSITION = `# HELP service_requests service_requests counter
# TYPE service_requests counter
service_requests{namespace="default",operation="DescribeWorkflowExecution",service_name="frontend"} 120
service_requests{operation="DescribeWorkflowExecution",namespace="other",service_name="frontend"} 5
service_requests{namespace="default",operation="PollWorkflowExecutionHistory",service_name="frontend",taskqueue="_unknown_"} 7
service_requests{namespace="default",operation="QueryWorkflow",service_name="frontend"} 3e+00
service_requests{namespace="default",operation="RecordActivityTaskHeartbeat",service_name="frontend"} 40
service_requests{namespace="default",operation="DescribeWorkflowExecution",service_name="history"} 999
service_requests_total{namespace="default",operation="QueryWorkflow",service_name="frontend"} 77
service_errors{namespace="default",operation="QueryWorkflow",service_name="frontend"} 2
`;

describe("the dev server's request counters", () => {
  it("sums the frontend's service_requests by operation over namespaces, and nothing else", () => {
    expect(parseFrontendRequests(EXPOSITION)).toEqual({
      DescribeWorkflowExecution: 125,
      PollWorkflowExecutionHistory: 7,
      QueryWorkflow: 3,
      RecordActivityTaskHeartbeat: 40,
    });
  });

  it("counts a window as after − before, and groups history long polls with history reads", () => {
    const before = parseFrontendRequests(EXPOSITION);
    const after = { ...before, DescribeWorkflowExecution: 225, QueryWorkflow: 3, StartWorkflowExecution: 4 };
    const window = requestsBetween(before, after);
    expect(window).toEqual({ DescribeWorkflowExecution: 100, StartWorkflowExecution: 4 });
    expect(groupRequests({ ...window, PollWorkflowExecutionHistory: 6, GetWorkflowExecutionHistory: 1 })).toEqual({
      total: 111,
      describes: 100,
      queries: 0,
      historyReads: 7,
      heartbeats: 0,
    });
  });

  it("names a gRPC call by its method", () => {
    expect(methodOf("/temporal.api.workflowservice.v1.WorkflowService/QueryWorkflow")).toBe("QueryWorkflow");
  });
});

describe("a run's history", () => {
  it("counts each workflow task as 3 events, whether it ran once or timed out and ran again", () => {
    const task = [
      { workflowTaskScheduledEventAttributes: {} },
      { workflowTaskStartedEventAttributes: {} },
      { workflowTaskCompletedEventAttributes: {} },
    ];
    const timedOut = [
      { workflowTaskScheduledEventAttributes: {} },
      { workflowTaskStartedEventAttributes: {} },
      { workflowTaskTimedOutEventAttributes: {} },
    ];
    const start = [{ workflowExecutionStartedEventAttributes: {} }];
    const end = [{ workflowExecutionCompletedEventAttributes: {} }];
    const once = countHistory([...start, ...task, { activityTaskScheduledEventAttributes: {} }, ...task, ...end]);
    const again = countHistory([
      ...start,
      ...timedOut,
      ...task,
      { activityTaskScheduledEventAttributes: {} },
      ...task,
      ...end,
    ]);
    expect(once).toEqual({ events: 9, normalized: 9, workflowTaskRetries: 0 });
    expect(again).toEqual({ events: 12, normalized: 9, workflowTaskRetries: 1 });
    expect(countHistory([...start, { workflowExecutionSignaledEventAttributes: {} }, ...task, ...end]).normalized).toBe(
      6,
    );
  });
});

describe("percentiles", () => {
  it("takes the nearest rank, whatever the order", () => {
    const values = [50, 10, 40, 20, 30, 60, 70, 80, 90, 100];
    expect(percentile(values, 50)).toBe(60);
    expect(percentile(values, 95)).toBe(100);
    expect(percentile(values, 0)).toBe(10);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe("where the watchers go", () => {
  it("spreads each run's watchers over every client process, and alternates runs of one watcher", () => {
    const thousand = placeWatchers(10, 100, 2);
    expect(thousand.map((p) => [...p.values()].reduce((a, b) => a + b, 0))).toEqual([500, 500]);
    for (let run = 0; run < 10; run++) expect(thousand.map((p) => p.get(run))).toEqual([50, 50]);
    const single = placeWatchers(4, 1, 2);
    expect(single.map((p) => [...p.keys()])).toEqual([
      [0, 2],
      [1, 3],
    ]);
  });

  it("answers every run with the same text of distinct chunks", () => {
    expect(answerText(3)).toBe("w000w001w002");
  });
});

const PLAN: WatchersPlan = {
  transports: ["long-poll", "redis"],
  runs: 10,
  watchersPerRun: [1, 10, 100],
  clientProcesses: 2,
  rounds: MIN_ROUNDS_TO_DECIDE,
  firstRoundOnly: [],
  answerChunks: 10,
  roundDeadlineMs: 1000,
};

/** A run's history of `events` events, `retries` workflow tasks of which timed out (3 events each, counted once when normalized). */
const history = (events: number, retries = 0) => ({
  events,
  normalized: events - 3 * retries,
  workflowTaskRetries: retries,
});

/** A round of `runs` runs over 1 s whose frontend requests total `requests`, with these latencies. */
function cellRound(
  transport: Transport,
  watchersPerRun: number,
  round: number,
  requests: number,
  latencies: { first?: number[]; lag?: number[]; events?: number } = {},
): CellRound {
  return {
    transport,
    watchersPerRun,
    round,
    windowMs: 1000,
    answerWindowMs: 1000,
    requests: { DescribeWorkflowExecution: requests },
    clientCalls: {},
    rejected: 0,
    clientCpuMs: 100,
    workerCpuMs: 50,
    workflowIds: [],
    histories: Array.from({ length: PLAN.runs }, () => history(latencies.events ?? 12)),
    firstDeltaMs: latencies.first ?? [50],
    lastDeltaLagMs: latencies.lag ?? [100],
    watchers: PLAN.runs * watchersPerRun,
    unfinished: 0,
    wrongText: 0,
    wrongTextSamples: [],
    errors: [],
  };
}

describe("the goals", () => {
  const goalsOf = (rounds: CellRound[]) =>
    watchersGoals(rounds, summarize(rounds, PLAN, ["long-poll", "redis"]), PLAN, [history(12), history(15, 1)]);
  const allRounds = Array.from({ length: PLAN.rounds }, (_v, round) => round);

  it("meets a goal only when its whole interval meets it, and leaves it undecided when the interval straddles it", () => {
    // long-poll: W = 10 at 1.0× then 1.3× of W = 1, in turn: a mean of 1.12×, an interval from 1× to over 1.1×.
    const rounds = allRounds.flatMap((round) => [
      cellRound("long-poll", 1, round, 100),
      cellRound("long-poll", 10, round, [100, 130][round % 2]!),
      cellRound("redis", 1, round, 50),
      cellRound("redis", 10, round, 50),
      cellRound("redis", 100, round, 50, { first: [40, 60, 80], lag: [100, 200, 240] }),
    ]);
    const goals = goalsOf(rounds);
    const longPoll = goals.find((g) => g.goal.startsWith("(b)"))!;
    expect(longPoll.figure).toBe("1.12 [1–1.24]×");
    expect(longPoll.status).toBe("undecided");
    expect(longPoll.interval).toMatchObject({ low: 1, rounds: PLAN.rounds });
    expect(goals.find((g) => g.goal.startsWith("(c)"))).toMatchObject({ figure: "1 [1–1]×", status: "met" });
    expect(goals.find((g) => g.goal.includes("first delta p50"))).toMatchObject({
      figure: "60 [60–60] ms",
      status: "met",
    });
    expect(goals.find((g) => g.goal.includes("last-delta lag p95"))).toMatchObject({ status: "met" });
    expect(goals.find((g) => g.goal.startsWith("0 added history events"))!.status).toBe("met");
    expect(goals.find((g) => g.goal.startsWith("every watcher"))!.status).toBe("met");
  });

  it("fails the latency goal at 1,000 watchers when every round's p95 lag is over, and counts added history events", () => {
    const rounds = (eventsAtW10: (round: number) => number) =>
      allRounds.flatMap((round) => [
        cellRound("redis", 1, round, 50),
        cellRound("redis", 10, round, 50, { events: eventsAtW10(round) }),
        cellRound("redis", 100, round, 50, { lag: [100, 300] }),
      ]);
    const everyRound = goalsOf(rounds(() => 13));
    expect(everyRound.find((g) => g.goal.includes("last-delta lag p95"))).toMatchObject({
      figure: "300 [300–300] ms",
      status: "not met",
    });
    expect(everyRound.find((g) => g.goal.startsWith("0 added history events"))!.status).toBe("not met");
    // An exact count: one event added in one round of five is a miss, whatever the interval.
    const oneRound = goalsOf(rounds((round) => (round === 2 ? 13 : 12)));
    expect(oneRound.find((g) => g.goal.startsWith("0 added history events"))!.status).toBe("not met");
  });

  it(`decides nothing under ${MIN_ROUNDS_TO_DECIDE} rounds, and reports what was not measured as such`, () => {
    const rounds = [0, 1].flatMap((round) => [
      cellRound("long-poll", 1, round, 10),
      cellRound("long-poll", 10, round, 10),
    ]);
    const goals = goalsOf(rounds);
    expect(goals.find((g) => g.goal.startsWith("(b)"))).toMatchObject({ figure: "1 [1–1]×", status: "undecided" });
    expect(goals.find((g) => g.goal.includes("first delta p50"))).toMatchObject({
      figure: "not measured (Redis transport not run)",
      status: "not measured",
    });
    expect(formatInterval({ estimate: NaN, low: NaN, high: NaN, rounds: 0, level: 0.95 })).toBe("n/a");
  });
});
