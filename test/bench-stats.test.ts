/**
 * The benchmark's statistics (bench/stats): rounds interleaved across subjects in the order A, B, C,
 * A, B, C, ...; the bootstrap intervals of medians and of ratios over paired rounds, reproducible
 * from their seed; goals judged on the whole interval; and the benchmark's goals (bench/report.ts)
 * judged that way from made-up figures. No servers: `npm run bench` measures, this checks the
 * arithmetic and the rules.
 */
import { describe, expect, it } from "vitest";
import type { ContenderFigures } from "../bench/overhead.js";
import { BARE } from "../bench/bare-activities.js";
import { goals, type BenchResults } from "../bench/report.js";
import { Prng } from "../bench/soak/prng.js";
import {
  formatInterval,
  interleaveRounds,
  judgeAll,
  judgeExact,
  judgeInterval,
  mean,
  meanInterval,
  meanRatioInterval,
  median,
  medianInterval,
  MIN_ROUNDS_TO_DECIDE,
  ratioInterval,
  type Interval,
} from "../bench/stats/index.js";
import type { ThroughputFigures } from "../bench/throughput.js";

/** `n` samples around `centre`, each times a load factor in [1, 1 + spread) drawn from `prng`. */
const noisy = (prng: Prng, n: number, centre: number, spread = 0.3) =>
  Array.from({ length: n }, () => centre * (1 + spread * prng.next()));

describe("interleaveRounds", () => {
  it("runs round 1 of every subject, then round 2 of every subject, ..., one call at a time", async () => {
    const calls: string[] = [];
    let running = 0;
    const samples = await interleaveRounds(["A", "B", "C"], 3, async (subject, round, index) => {
      running += 1;
      expect(running).toBe(1);
      await new Promise((resolve) => setImmediate(resolve));
      calls.push(`${subject}${round}`);
      running -= 1;
      return `${subject}:${round}:${index}`;
    });
    expect(calls).toEqual(["A0", "B0", "C0", "A1", "B1", "C1", "A2", "B2", "C2"]);
    expect(samples).toEqual([
      ["A:0:0", "A:1:0", "A:2:0"],
      ["B:0:1", "B:1:1", "B:2:1"],
      ["C:0:2", "C:1:2", "C:2:2"],
    ]);
  });

  it("runs nothing for 0 rounds, and rejects a number of rounds that is not a whole number ≥ 0", async () => {
    let calls = 0;
    expect(await interleaveRounds(["A", "B"], 0, async () => ++calls)).toEqual([[], []]);
    expect(calls).toBe(0);
    await expect(interleaveRounds(["A"], -1, async () => 0)).rejects.toThrow(RangeError);
    await expect(interleaveRounds(["A"], 1.5, async () => 0)).rejects.toThrow(RangeError);
  });

  it("stops at the first round that fails, with its error", async () => {
    const calls: string[] = [];
    const failing = interleaveRounds(["A", "B"], 3, async (subject, round) => {
      calls.push(`${subject}${round}`);
      if (subject === "B" && round === 1) throw new Error("B's worker died");
    });
    await expect(failing).rejects.toThrow("B's worker died");
    expect(calls).toEqual(["A0", "B0", "A1", "B1"]);
  });

  it("keeps a ratio that load coming and going would flip if each subject ran its rounds in turn", async () => {
    // A costs 0.8 of B; the machine is twice as slow in the second half of the benchmark.
    const cost = { A: 0.8, B: 1 };
    const rounds = 10;
    const measure = () => {
      let calls = 0;
      return async (subject: "A" | "B") => cost[subject] * (calls++ < rounds ? 1 : 2);
    };
    const sequentialMeasure = measure();
    const a: number[] = [];
    for (let i = 0; i < rounds; i++) a.push(await sequentialMeasure("A"));
    const b: number[] = [];
    for (let i = 0; i < rounds; i++) b.push(await sequentialMeasure("B"));
    expect(ratioInterval(a, b).estimate).toBeCloseTo(0.4);
    const [ia, ib] = await interleaveRounds(["A", "B"] as const, rounds, measure());
    const interval = ratioInterval(ia!, ib!);
    expect(interval.estimate).toBeCloseTo(0.8);
    expect(interval.low).toBeCloseTo(0.8);
    expect(interval.high).toBeCloseTo(0.8);
  });
});

describe("ratioInterval and medianInterval", () => {
  it("estimate the ratio of the medians, inside an interval that the same seed always reproduces", () => {
    const prng = new Prng(7);
    const a = noisy(prng, 30, 40);
    const b = noisy(prng, 30, 52);
    const interval = ratioInterval(a, b);
    expect(interval.estimate).toBeCloseTo(median(a) / median(b), 12);
    expect(interval.low).toBeLessThan(interval.estimate);
    expect(interval.high).toBeGreaterThan(interval.estimate);
    expect(interval).toMatchObject({ rounds: 30, level: 0.95 });
    expect(ratioInterval(a, b)).toEqual(interval);
    expect(ratioInterval(a, b, { seed: 2 })).not.toEqual(interval);
    const wider = ratioInterval(a, b, { level: 0.99 });
    expect(wider.low).toBeLessThan(interval.low);
    expect(wider.high).toBeGreaterThan(interval.high);
  });

  it("resample rounds as pairs: load shared by a round cancels out of the ratio", () => {
    const prng = new Prng(3);
    const load = Array.from({ length: 20 }, () => 1 + 3 * prng.next());
    const b = load.map((l) => 50 * l);
    const a = load.map((l) => 40 * l);
    const paired = ratioInterval(a, b);
    expect(paired.low).toBeCloseTo(0.8, 12);
    expect(paired.high).toBeCloseTo(0.8, 12);
    // The same samples with the pairing lost (b's rounds reversed) give a wide interval.
    const unpaired = ratioInterval(a, [...b].reverse());
    expect(unpaired.high - unpaired.low).toBeGreaterThan(0.3);
  });

  it("cover the true ratio about 95% of the time at 30 rounds", () => {
    const prng = new Prng(11);
    const experiments = 200;
    let covered = 0;
    for (let i = 0; i < experiments; i++) {
      // Per-round noise, symmetric around each subject's true median: 40 and 50, true ratio 0.8.
      const a = Array.from({ length: 30 }, () => 40 * Math.exp(0.3 * (prng.next() - 0.5)));
      const b = Array.from({ length: 30 }, () => 50 * Math.exp(0.3 * (prng.next() - 0.5)));
      const interval = ratioInterval(a, b, { resamples: 1000, seed: i + 1 });
      if (interval.low <= 0.8 && 0.8 <= interval.high) covered += 1;
    }
    expect(covered / experiments).toBeGreaterThan(0.9);
    expect(covered / experiments).toBeLessThan(0.99);
  });

  it("give the median's interval over one subject's rounds", () => {
    const samples = [12, 15, 9, 14, 11, 13, 10];
    const interval = medianInterval(samples);
    expect(interval.estimate).toBe(12);
    expect(interval.low).toBeGreaterThanOrEqual(9);
    expect(interval.high).toBeLessThanOrEqual(15);
    expect(interval.low).toBeLessThan(12);
    expect(interval.high).toBeGreaterThan(12);
  });

  it("are unbounded when the denominator's median can be zero or negative, and refuse unpaired or no samples", () => {
    const unbounded = ratioInterval([1, 2, 3, 4, 5], [-1, 0, 1, 2, 3]);
    expect(unbounded).toMatchObject({ low: -Infinity, high: Infinity });
    expect(judgeInterval(unbounded, { atMost: 1 })).toBe("undecided");
    expect(formatInterval(ratioInterval([1, 2], [0, 0]))).toBe("n/a (−∞–∞)");
    expect(() => ratioInterval([1, 2, 3], [1, 2])).toThrow(/equally long/);
    expect(() => ratioInterval([], [])).toThrow(/no samples/);
  });

  it("format as the estimate with its unit, then the interval", () => {
    const interval: Interval = { estimate: 0.7649, low: 0.7012, high: 0.8333, rounds: 30, level: 0.95 };
    expect(formatInterval(interval, "×")).toBe("0.76× (0.70–0.83)");
    expect(formatInterval(interval, " ms", 1)).toBe("0.8 ms (0.7–0.8)");
  });
});

describe("meanInterval and meanRatioInterval", () => {
  it("put a mean inside its interval, which narrows with steadier rounds and the same rounds reproduce", () => {
    const wide = meanInterval([80, 120, 60, 140, 100]);
    const steady = meanInterval([99, 101, 100, 100, 100]);
    expect(wide.estimate).toBe(100);
    expect(wide.low).toBeLessThan(100);
    expect(wide.high).toBeGreaterThan(100);
    expect(steady.high - steady.low).toBeLessThan((wide.high - wide.low) / 10);
    expect(meanInterval([5, 5, 5])).toEqual({ estimate: 5, low: 5, high: 5, rounds: 3, level: 0.95 });
    expect(meanInterval([80, 120, 60, 140, 100])).toEqual(wide);
  });

  it("take the ratio of the means, not of the medians, resampled as pairs", () => {
    expect(mean([1, 1, 10])).toBe(4);
    expect(meanRatioInterval([1, 1, 10], [1, 1, 1]).estimate).toBe(4);
    expect(ratioInterval([1, 1, 10], [1, 1, 1]).estimate).toBe(1);
    const load = [1, 3, 0.5, 2, 4]; // each round's load multiplies both subjects' figures
    const base = load.map((l) => 20 * l);
    expect(
      meanRatioInterval(
        base.map((b) => 2 * b),
        base,
      ),
    ).toMatchObject({ estimate: 2, low: 2, high: 2, rounds: 5 });
  });

  it("are unbounded when the denominator's mean can be zero, and refuse unpaired or no samples", () => {
    expect(meanRatioInterval([1, 2], [0, 1])).toMatchObject({ low: -Infinity, high: Infinity });
    expect(() => meanRatioInterval([1, 2], [1])).toThrow(/equally long/);
    expect(() => meanInterval([])).toThrow(/no samples/);
  });
});

describe("goals judged on the whole interval", () => {
  const interval = (low: number, high: number, rounds = 30): Interval => ({
    estimate: (low + high) / 2,
    low,
    high,
    rounds,
    level: 0.95,
  });

  it("are met only when all of the interval meets the bound, not met when none of it does, else undecided", () => {
    expect(judgeInterval(interval(0.7, 0.83), { atMost: 1 })).toBe("met");
    expect(judgeInterval(interval(0.7, 1), { atMost: 1 })).toBe("met");
    expect(judgeInterval(interval(0.78, 1.39), { atMost: 1 })).toBe("undecided");
    expect(judgeInterval(interval(1.01, 1.39), { atMost: 1 })).toBe("not met");
    expect(judgeInterval(interval(2, 2.4), { atLeast: 2 })).toBe("met");
    expect(judgeInterval(interval(1.7, 2.1), { atLeast: 2 })).toBe("undecided");
    expect(judgeInterval(interval(1.5, 1.9), { atLeast: 2 })).toBe("not met");
  });

  it(`decide nothing under ${MIN_ROUNDS_TO_DECIDE} rounds`, () => {
    expect(judgeInterval(interval(0.7, 0.8, MIN_ROUNDS_TO_DECIDE - 1), { atMost: 1 })).toBe("undecided");
    expect(judgeInterval(interval(1.2, 1.3, MIN_ROUNDS_TO_DECIDE - 1), { atMost: 1 })).toBe("undecided");
    expect(judgeInterval(interval(0.7, 0.8, MIN_ROUNDS_TO_DECIDE), { atMost: 1 })).toBe("met");
  });

  it("against several intervals: met on all, not met on any, else undecided", () => {
    const met = interval(0.6, 0.8);
    const straddles = interval(0.9, 1.1);
    const notMet = interval(1.1, 1.2);
    expect(judgeAll([met, met], { atMost: 1 })).toBe("met");
    expect(judgeAll([met, straddles], { atMost: 1 })).toBe("undecided");
    expect(judgeAll([straddles, notMet], { atMost: 1 })).toBe("not met");
    expect(judgeAll([], { atMost: 1 })).toBe("not measured");
    expect([judgeExact(true), judgeExact(false), judgeExact(null)]).toEqual(["met", "not met", "not measured"]);
  });
});

describe("the benchmark's goals (bench/report.ts)", () => {
  /** A contender's figures with the given per-trip overhead of each round. */
  function contender(name: string, library: string, byRound: number[], bytesPerTrip: number): ContenderFigures {
    const p = { p50: median(byRound), p95: Math.max(...byRound) };
    return {
      name,
      library,
      modelActivity: "model.call",
      toolActivity: "tool.execute",
      runs: byRound.length,
      trips: 10,
      toolCalls: 9,
      floorRunMs: { p50: 35, p95: 40 },
      durableRunMs: { p50: 35 + 10 * p.p50, p95: 35 + 10 * p.p95 },
      perTripOverheadMs: p,
      perTripOverheadMsByRound: byRound,
      history: {
        events: 120,
        bytes: bytesPerTrip * 10,
        eventsPerTrip: 12,
        bytesPerTrip,
        eventsPerToolCall: 13.3,
        bytesPerToolCall: Math.round((bytesPerTrip * 10) / 9),
      },
      timelinePerTripMs: { run: 40, workflowTasks: 28, workflowTaskWait: 6, activities: {} },
    };
  }

  /** Per-trip overhead rounds: each subject's cost times the round's load, shared by every subject in the round. */
  function overheadResults(rounds: number, cost: Record<string, number>, seed = 5): BenchResults {
    const prng = new Prng(seed);
    const load = Array.from({ length: rounds }, () => 1 + prng.next());
    const byRound = (name: string) => load.map((l) => cost[name]! * l);
    return {
      machine: { cpus: 2, memoryGiB: 24, node: "v20" },
      quick: rounds < MIN_ROUNDS_TO_DECIDE,
      servers: [
        {
          setting: "tuned",
          dynamicConfig: [],
          overhead: [
            contender("durable-agent (activities)", "durable-agent", byRound("activities"), 2789),
            contender("durable-agent (local tools)", "durable-agent", byRound("local tools"), 2261),
            contender("durable-agent (local model and tools)", "durable-agent", byRound("local"), 1643),
            contender("durable-agent (AI SDK model)", "durable-agent", byRound("ai model"), 2800),
            contender("@temporalio/ai-sdk", "@temporalio/ai-sdk", byRound("ai-sdk"), 5894),
            contender("@temporalio/openai-agents", "@temporalio/openai-agents", byRound("openai-agents"), 5126),
          ],
        },
      ],
    };
  }

  const status = (all: ReturnType<typeof goals>, start: string) => all.find((g) => g.goal.startsWith(start))?.status;

  it("judge each ratio on its interval over the paired rounds, against every peer", () => {
    const all = goals(
      overheadResults(30, {
        activities: 40,
        "local tools": 31,
        local: 15,
        "ai model": 42,
        "ai-sdk": 52,
        "openai-agents": 56,
      }),
    );
    expect(status(all, "per-trip overhead p50 with activities ≤ 1×")).toBe("met");
    expect(status(all, "per-trip overhead p50 with local tools ≤ 0.5×")).toBe("not met");
    expect(status(all, "per-trip overhead p50 ≤ 10 ms")).toBe("not met");
    expect(status(all, "per-trip overhead p50 of an AI SDK model ≤ 1.1×")).toBe("met");
    expect(status(all, "history bytes per trip ≤ 0.5×")).toBe("not met");
    expect(status(all, "throughput at 200")).toBe("not measured");
    const activities = all.find((g) => g.goal.startsWith("per-trip overhead p50 with activities"))!;
    expect(activities.interval).toMatchObject({ rounds: 30 });
    expect(activities.interval!.estimate).toBeCloseTo(40 / 52, 12);
    expect(activities.figure).toContain("0.77× (0.77–0.77) over 30 rounds @temporalio/ai-sdk's");
    expect(activities.figure).toContain("0.71× (0.71–0.71) over 30 rounds @temporalio/openai-agents's");
  });

  it("call a goal undecided when the interval of its ratio to one peer straddles its bound", () => {
    const results = overheadResults(30, {
      activities: 40,
      "local tools": 31,
      local: 15,
      "ai model": 42,
      "ai-sdk": 52,
      "openai-agents": 56,
    });
    // The first peer's rounds with noise of their own around ours: the ratio's interval straddles 1.
    const prng = new Prng(9);
    const peer = results.servers[0]!.overhead[4] as Extract<ContenderFigures, { runs: number }>;
    const ours = results.servers[0]!.overhead[0] as Extract<ContenderFigures, { runs: number }>;
    peer.perTripOverheadMsByRound = ours.perTripOverheadMsByRound.map((x) => x * (0.8 + 0.4 * prng.next()));
    peer.perTripOverheadMs = { p50: median(peer.perTripOverheadMsByRound), p95: 80 };
    const goal = goals(results).find((g) => g.goal.startsWith("per-trip overhead p50 with activities"))!;
    expect(goal.interval!.low).toBeLessThan(1);
    expect(goal.interval!.high).toBeGreaterThan(1);
    expect(goal.status).toBe("undecided");
  });

  it("decide no ratio on a quick run's few rounds", () => {
    const all = goals(
      overheadResults(MIN_ROUNDS_TO_DECIDE - 1, {
        activities: 20,
        "local tools": 10,
        local: 5,
        "ai model": 20,
        "ai-sdk": 52,
        "openai-agents": 56,
      }),
    );
    for (const start of [
      "per-trip overhead p50 with activities",
      "per-trip overhead p50 with local tools",
      "per-trip overhead p50 ≤ 10 ms",
      "per-trip overhead p50 of an AI SDK model",
    ])
      expect(status(all, start)).toBe("undecided");
    expect(status(all, "history bytes per trip ≤ 0.5×")).toBe("not met");
  });

  it("judge throughput at 200 runs on the ratio to each peer over the level's rounds", () => {
    const level = (runsPerSecondByRound: number[], workerCpuMsPerTripByRound?: number[]) => ({
      concurrentRuns: 200,
      rounds: runsPerSecondByRound.length,
      completed: 200 * runsPerSecondByRound.length,
      errors: 0,
      wallSeconds: 30,
      runsPerSecond: median(runsPerSecondByRound),
      runsPerSecondByRound,
      tripsPerSecond: 10 * median(runsPerSecondByRound),
      latencyMs: { p50: 1, p95: 1, max: 1 },
      workerRssMiB: { idle: 200, peak: 400 },
      ...(workerCpuMsPerTripByRound
        ? { workerCpuMsPerTrip: median(workerCpuMsPerTripByRound), workerCpuMsPerTripByRound }
        : {}),
    });
    const load = [1, 1.3, 0.9, 1.1, 1.6];
    const throughput = (ours: number, oursCpu = 5, bare?: number): ThroughputFigures[] =>
      (
        [
          ["durable-agent", ours, oursCpu],
          ["@temporalio/ai-sdk", 3.4, 12],
          ["@temporalio/openai-agents", 1.9, 30],
          ...(bare ? [[BARE, bare, 3] as const] : []),
        ] as const
      ).map(([library, rate, cpu]) => ({
        library,
        ...(library === "durable-agent" ? { execution: "activities" as const } : {}),
        worker: "one child process",
        workerOptions: {
          maxConcurrentActivityTaskExecutions: 1000,
          maxConcurrentLocalActivityExecutions: 1000,
          maxConcurrentWorkflowTaskExecutions: 100,
        },
        levels: [
          level(
            load.map((l) => rate / l),
            load.map((l) => cpu * l),
          ),
        ],
      }));
    const results = overheadResults(30, {
      activities: 40,
      "local tools": 31,
      local: 15,
      "ai model": 42,
      "ai-sdk": 52,
      "openai-agents": 56,
    });
    expect(status(goals({ ...results, throughput: throughput(5.9) }), "throughput at 200")).toBe("not met");
    expect(status(goals({ ...results, throughput: throughput(8.5) }), "throughput at 200")).toBe("not met"); // 2.5×: under 3×
    expect(status(goals({ ...results, throughput: throughput(11) }), "throughput at 200")).toBe("met");
    // Worker CPU per trip against the leaner peer (ai-sdk's): 5 ms a trip is 0.42× its 12, 7 ms 0.58×.
    expect(status(goals({ ...results, throughput: throughput(11, 5) }), "worker CPU per trip")).toBe("met");
    expect(status(goals({ ...results, throughput: throughput(11, 7) }), "worker CPU per trip")).toBe("not met");
    expect(
      goals({ ...results, throughput: throughput(11, 5) }).find((g) => g.goal.startsWith("worker CPU"))!.figure,
    ).toContain("@temporalio/ai-sdk's 13.2 ms");
    // Listener warnings: the bench process's and the throughput workers', counted; none is the goal.
    expect(status(goals({ ...results, throughput: throughput(11) }), "0 MaxListeners")).toBe("not measured");
    expect(status(goals({ ...results, throughput: throughput(11), listenerWarnings: 0 }), "0 MaxListeners")).toBe(
      "met",
    );
    // The bare workflow is the ceiling, named in the figure, and never the peer a goal is judged against:
    // 6.8 runs/s is 2× the peer's 3.4, ours 5.9 is 0.87× of it (each round's rate divided by its load alike); the goal
    // stays judged on the peer.
    const withBare = goals({ ...results, throughput: throughput(5.9, 5, 6.8) });
    const goal = withBare.find((g) => g.goal.startsWith("throughput at 200"))!;
    expect(goal.status).toBe("not met");
    expect(goal.figure).toMatch(/1\.7\d× \(.*\) over 5 rounds @temporalio\/ai-sdk's/); // ours 5.9 over the peer's 3.4
    expect(goal.figure).toMatch(
      /the ceiling, a bare Temporal workflow of the same shape: [\d.]+ runs\/s, 2\.00× \(.*\) over 5 rounds @temporalio\/ai-sdk's; ours is 0\.87×/,
    );
    expect(withBare.find((g) => g.goal.startsWith("worker CPU"))!.figure).not.toContain(BARE);
    expect(
      goals({ ...results, throughput: throughput(5.9) }).find((g) => g.goal.startsWith("throughput at 200"))!.figure,
    ).not.toContain("ceiling");
    const warned = throughput(11);
    warned[1]!.listenerWarnings = 2;
    expect(status(goals({ ...results, throughput: warned, listenerWarnings: 0 }), "0 MaxListeners")).toBe("not met");
  });
});
