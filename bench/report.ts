/**
 * The benchmark's tables: printed with console.table, and returned as Markdown (for
 * docs/performance.md); the goals of issue 16, each ratio with its 95% interval over the rounds and
 * judged on the whole interval (bench/stats).
 */
import type { LongRunFigures } from "./long-runs.js";
import { AI_SDK_CONTENDER } from "./ai-sdk-contender.js";
import type { ContenderFigures, OverheadFigures } from "./overhead.js";
import type { StreamingError, StreamingFigures } from "./streaming.js";
import { streamingGoals, streamingRows } from "./streaming-report.js";
import type { ThroughputFigures, ThroughputLevel } from "./throughput.js";
import { BARE } from "./bare-activities.js";
import { round } from "./lib.js";
import {
  formatInterval,
  formatRatio,
  judgeAll,
  judgeExact,
  judgeInterval,
  medianInterval,
  ratioInterval,
  type Goal,
  type Interval,
} from "./stats/index.js";
import { markdownTable } from "./markdown-table.js";

/** The figures on one server setting. */
export interface ServerFigures {
  setting: ServerSetting;
  /** The dynamic config values the dev server was started with (on top of the CLI's defaults). */
  dynamicConfig: string[];
  overhead: ContenderFigures[];
  /** This process's peak RSS while the overhead rounds ran (ours and both peers' workers in it, all up at once). */
  benchProcessPeakRssMiB?: number;
}

export type ServerSetting = "tuned" | "default";

export interface BenchResults {
  machine: {
    cpus: number;
    cpuModel?: string;
    memoryGiB: number;
    node: string;
    loadAverageAtStart?: number[];
    loadAverageAtEnd?: number[];
  };
  quick: boolean;
  servers: ServerFigures[];
  streaming?: (StreamingFigures | StreamingError)[];
  longRuns?: LongRunFigures[];
  throughput?: ThroughputFigures[];
  /** `MaxListenersExceededWarning`s the bench process printed over the whole run (its throughput workers' are in `throughput`). */
  listenerWarnings?: number;
  goals?: Goal[];
}

type Row = Record<string, string | number>;
type Measured = Extract<ContenderFigures, OverheadFigures>;

const measured = (figures: ContenderFigures[] = []) => figures.filter((f): f is Measured => !("error" in f));
const PEERS = ["@temporalio/ai-sdk", "@temporalio/openai-agents"];
/** The peer with the lower per-trip overhead p50 on a server. */
function betterPeer(figures: ContenderFigures[]): Measured | undefined {
  return measured(figures)
    .filter((f) => PEERS.includes(f.library))
    .sort((a, b) => a.perTripOverheadMs.p50 - b.perTripOverheadMs.p50)[0];
}
/** Ours ÷ another contender's per-trip overhead, with its interval over the paired rounds. */
const overheadRatio = (ours: Measured, other: Measured): Interval =>
  ratioInterval(ours.perTripOverheadMsByRound, other.perTripOverheadMsByRound);

export function report(results: BenchResults): string {
  const sections: string[] = [];
  const table = (title: string, rows: Row[]) => {
    console.log(`\n${title}`);
    console.table(rows);
    sections.push(`**${title}**\n\n${markdownTable(rows)}`);
  };

  const first = measured(results.servers[0]?.overhead)[0];
  table(
    `Per-trip overhead over each library's own in-process floor, ms (${first?.trips ?? "?"} trips, ${first?.toolCalls ?? "?"} tool calls, ${first?.runs ?? "?"} interleaved rounds of every contender; ÷ better peer: the ratio of the medians over the rounds with its 95% bootstrap interval; server: default = the CLI's dev server as it ships, tuned = ours${rssNote(results.servers)})`,
    results.servers.flatMap((server) => {
      const peer = betterPeer(server.overhead);
      return server.overhead.map((f): Row =>
        "error" in f
          ? { server: server.setting, "": f.name, "floor run p50": `did not run: ${f.error}` }
          : {
              server: server.setting,
              "": f.name,
              "floor run p50": f.floorRunMs.p50,
              "durable run p50": f.durableRunMs.p50,
              "durable run p95": f.durableRunMs.p95,
              "overhead/trip p50": f.perTripOverheadMs.p50,
              "overhead/trip p95": f.perTripOverheadMs.p95,
              "÷ better peer (95% CI)":
                PEERS.includes(f.library) || !peer ? "" : formatInterval(overheadRatio(f, peer)),
            },
      );
    }),
  );

  const tuned = results.servers.find((s) => s.setting === "tuned") ?? results.servers[0];
  const tunedFigures = measured(tuned?.overhead);
  table(
    "History of one run",
    tunedFigures.map((f) => ({
      "": f.name,
      "events/run": f.history.events,
      "bytes/run": f.history.bytes,
      "events/trip": f.history.eventsPerTrip,
      "bytes/trip": f.history.bytesPerTrip,
    })),
  );

  table(
    `Where a durable trip's time goes, ms (${tuned?.setting} server; history timestamps, mean; activities scheduled → completed, local activities inside the workflow task)`,
    results.servers.flatMap((server) =>
      measured(server.overhead).map((f) => ({
        server: server.setting,
        "": f.name,
        "run/trip": f.timelinePerTripMs.run,
        "model activity/trip": f.timelinePerTripMs.activities[f.modelActivity] ?? 0,
        "tool activity/trip": f.timelinePerTripMs.activities[f.toolActivity] ?? 0,
        "workflow tasks/trip": f.timelinePerTripMs.workflowTasks,
        "of which waiting to start": f.timelinePerTripMs.workflowTaskWait,
        "of which running": round(f.timelinePerTripMs.workflowTasks - f.timelinePerTripMs.workflowTaskWait),
        "floor run/trip": round(f.floorRunMs.p50 / f.trips),
      })),
    ),
  );

  if (results.throughput?.length) {
    const { title, rows } = throughputTable(results.throughput, tuned?.setting);
    table(title, rows);
  }

  if (results.longRuns) {
    table(
      "Long runs: history per trip as the conversation grows",
      results.longRuns.map((r) => ({
        trips: r.trips,
        events: r.events,
        bytes: r.bytes,
        "runs in chain": r.runsInChain,
        "events/trip": r.eventsPerTrip,
        "bytes/trip": r.bytesPerTrip,
      })),
    );
  }

  if (results.streaming)
    table(
      "Streaming: a 3-trip run, answers of 200 chunks at 200 chunks/s, one subscriber (per streamed trip)",
      streamingRows(results.streaming),
    );

  results.goals = goals(results);
  table(
    `Goals (reported, not tuned to; ${tuned?.setting} server; a goal on a varying figure is met when its whole 95% interval meets it, not met when none of it does, else undecided, and undecided under 5 rounds)`,
    results.goals.map((g) => ({ goal: g.goal, figure: g.figure, status: g.status })),
  );
  const m = results.machine;
  const load = m.loadAverageAtStart
    ? `; load average ${m.loadAverageAtStart[0]} at the start, ${m.loadAverageAtEnd?.[0] ?? "?"} at the end`
    : "";
  sections.unshift(
    `Machine: ${m.cpus} cores (${m.cpuModel ?? "?"}), ${m.memoryGiB} GiB, Node ${m.node}; Temporal dev server (SQLite in memory) on the same machine${load}${results.quick ? "; --quick" : ""}.`,
  );
  return sections.join("\n\n") + "\n";
}

/** The throughput table: each library's figures at each level, ours beside the better peer's. */
function throughputTable(throughput: ThroughputFigures[], setting: string | undefined): { title: string; rows: Row[] } {
  return {
    title: `Throughput: N runs started at once, one worker per library (child process; every library's worker up for the whole section, ${allWorkersIdleMiB(throughput)} MiB RSS idle together; interleaved rounds of every library at each level; runs/s: the median round's, ÷ better peer: the ratio of the medians with its 95% bootstrap interval; worker CPU: user + system of the worker process over a round ÷ its trips, the median round's, ÷ the peer with the lower figure; ${Object.entries(
      throughput[0]!.workerOptions,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}; ${setting} server)`,
    rows: throughput.flatMap((t) =>
      t.levels.map((l) => {
        const peer = betterPeerAt(throughput, l.concurrentRuns);
        const cpuPeer = leanerPeerAt(throughput, l.concurrentRuns);
        return {
          "": t.library === "durable-agent" ? `durable-agent (${t.execution})` : t.library,
          "concurrent runs": l.concurrentRuns,
          rounds: l.rounds,
          completed: l.completed,
          errors: l.errors,
          "runs/s": l.runsPerSecond,
          "÷ better peer (95% CI)":
            PEERS.includes(t.library) || !peer
              ? ""
              : formatInterval(ratioInterval(l.runsPerSecondByRound, peer.runsPerSecondByRound)),
          "trips/s": l.tripsPerSecond,
          "latency p50 ms": l.latencyMs.p50,
          "latency p95 ms": l.latencyMs.p95,
          "worker RSS idle MiB": l.workerRssMiB.idle,
          "worker RSS peak MiB": l.workerRssMiB.peak,
          "worker CPU ms/trip": l.workerCpuMsPerTrip ?? "",
          "CPU ÷ leaner peer (95% CI)":
            PEERS.includes(t.library) || !cpuPeer || !l.workerCpuMsPerTripByRound
              ? ""
              : formatInterval(ratioInterval(l.workerCpuMsPerTripByRound, cpuPeer.workerCpuMsPerTripByRound!)),
          "server CPU ms/trip": l.serverCpuMsPerTrip ?? "",
          "client + model CPU ms/trip": l.clientCpuMsPerTrip ?? "",
        };
      }),
    ),
  };
}

/**
 * `npm run bench:throughput`'s tables: the throughput table and the goals it decides (throughput,
 * worker CPU per trip, listener warnings), printed and returned as Markdown.
 */
export function throughputReport(results: BenchResults): string {
  const { title, rows } = throughputTable(results.throughput ?? [], "tuned");
  console.log(`\n${title}`);
  console.table(rows);
  const decided = goals(results).filter((g) => /^(throughput|worker CPU|0 MaxListeners)/.test(g.goal));
  results.goals = decided;
  const goalRows = decided.map((g) => ({ goal: g.goal, figure: g.figure, status: g.status }));
  console.log("\nGoals");
  console.table(goalRows);
  return `**${title}**\n\n${markdownTable(rows)}\n\n**Goals**\n\n${markdownTable(goalRows)}\n`;
}

/** The peers' figures at a throughput level, the one with the higher runs/s first. */
function peersAt(throughput: ThroughputFigures[], concurrentRuns: number): { name: string; level: ThroughputLevel }[] {
  return throughput
    .filter((t) => PEERS.includes(t.library))
    .flatMap((t) =>
      t.levels.filter((l) => l.concurrentRuns === concurrentRuns).map((level) => ({ name: t.library, level })),
    )
    .sort((a, b) => b.level.runsPerSecond - a.level.runsPerSecond);
}
const betterPeerAt = (throughput: ThroughputFigures[], concurrentRuns: number) =>
  peersAt(throughput, concurrentRuns)[0]?.level;
/** The peers' figures at a level with worker CPU measured, the one with the lower CPU per trip first. */
const cpuPeersAt = (throughput: ThroughputFigures[], concurrentRuns: number) =>
  peersAt(throughput, concurrentRuns)
    .filter((p) => p.level.workerCpuMsPerTripByRound?.length)
    .sort((a, b) => a.level.workerCpuMsPerTrip! - b.level.workerCpuMsPerTrip!);
const leanerPeerAt = (throughput: ThroughputFigures[], concurrentRuns: number) =>
  cpuPeersAt(throughput, concurrentRuns)[0]?.level;

/** The throughput workers' idle RSS summed over every library before the first level: what keeping them all up costs. */
function allWorkersIdleMiB(throughput: ThroughputFigures[]): number {
  return throughput.reduce((sum, t) => sum + (t.levels[0]?.workerRssMiB.idle ?? 0), 0);
}

function rssNote(servers: ServerFigures[]): string {
  const peaks = servers.flatMap((s) => (s.benchProcessPeakRssMiB ? [`${s.setting} ${s.benchProcessPeakRssMiB}`] : []));
  return peaks.length ? `; every contender's worker up at once in this process, peak RSS MiB: ${peaks.join(", ")}` : "";
}

/**
 * The goals of issue 16, on the tuned server. A goal against "the better peer" must hold against
 * each peer (≤ the lower overhead is ≤ both; ≥ the higher throughput is ≥ both), each ratio judged on
 * its interval over the paired rounds.
 */
export function goals(results: BenchResults): Goal[] {
  const tuned = results.servers.find((s) => s.setting === "tuned") ?? results.servers[0];
  const figures = measured(tuned?.overhead);
  const ours = (execution: string) =>
    figures.find((f) => f.library === "durable-agent" && f.name.endsWith(`(${execution})`));
  const peers = figures.filter((f) => PEERS.includes(f.library));
  const overheadVsPeers = (execution: string, factor: number): Goal => {
    const goal = `per-trip overhead p50 with ${execution} ≤ ${factor}× the better peer's`;
    const mine = ours(execution);
    if (!mine || peers.length === 0) return { goal, figure: "not measured", status: "not measured" };
    const intervals = peers.map((peer) => overheadRatio(mine, peer));
    const better = betterPeer(tuned?.overhead ?? [])!;
    return {
      goal,
      figure: `${mine.perTripOverheadMs.p50} ms; ${peers.map((peer, i) => `${formatRatio(intervals[i]!)} ${peer.name}'s ${peer.perTripOverheadMs.p50} ms`).join("; ")}`,
      status: judgeAll(intervals, { atMost: factor }),
      interval: intervals[peers.indexOf(better)]!,
    };
  };
  const local = ours("local model and tools");
  const localOverhead = local && medianInterval(local.perTripOverheadMsByRound);
  const mine200 = results.throughput
    ?.find((t) => t.library === "durable-agent" && t.execution === "activities")
    ?.levels.find((l) => l.concurrentRuns === 200);
  const peers200 = results.throughput ? peersAt(results.throughput, 200) : [];
  const throughputRatios = mine200
    ? peers200.map((peer) => ratioInterval(mine200.runsPerSecondByRound, peer.level.runsPerSecondByRound))
    : [];
  const bare200 = results.throughput?.find((t) => t.library === BARE)?.levels.find((l) => l.concurrentRuns === 200);
  // The ceiling: a bare workflow of the same shape over the better peer, and ours as a share of it.
  const ceiling =
    bare200 && peers200[0] && mine200
      ? `; the ceiling, a bare Temporal workflow of the same shape: ${bare200.runsPerSecond} runs/s, ` +
        `${formatRatio(ratioInterval(bare200.runsPerSecondByRound, peers200[0].level.runsPerSecondByRound))} ` +
        `${peers200[0].name}'s; ours is ${formatRatio(ratioInterval(mine200.runsPerSecondByRound, bare200.runsPerSecondByRound))} its runs/s`
      : "";
  const cpuPeers200 = results.throughput ? cpuPeersAt(results.throughput, 200) : [];
  const cpuRatios = mine200?.workerCpuMsPerTripByRound
    ? cpuPeers200.map((peer) =>
        ratioInterval(mine200.workerCpuMsPerTripByRound!, peer.level.workerCpuMsPerTripByRound!),
      )
    : [];
  const warnings =
    results.listenerWarnings === undefined
      ? undefined
      : results.listenerWarnings + (results.throughput ?? []).reduce((sum, t) => sum + (t.listenerWarnings ?? 0), 0);
  const plain = ours("activities");
  const aiSdk = figures.find((f) => f.name === AI_SDK_CONTENDER);
  const aiSdkRatio = aiSdk && plain && overheadRatio(aiSdk, plain);
  const bytesPeer = [...peers].sort((a, b) => a.history.bytesPerTrip - b.history.bytesPerTrip)[0];
  const thousandFigures = results.throughput?.find((t) => t.library === "durable-agent");
  const thousand = thousandFigures?.levels.find((l) => l.concurrentRuns === 1000);
  return [
    {
      goal: "per-trip overhead p50 ≤ 10 ms over the floor with local model and tools",
      figure: localOverhead
        ? `${formatInterval(localOverhead, " ms", 1)} over ${localOverhead.rounds} rounds`
        : "not measured",
      status: localOverhead ? judgeInterval(localOverhead, { atMost: 10 }) : "not measured",
      ...(localOverhead ? { interval: localOverhead } : {}),
    },
    overheadVsPeers("local tools", 0.5),
    overheadVsPeers("activities", 1.0),
    {
      goal: "per-trip overhead p50 of an AI SDK model ≤ 1.1× ai.openai()'s (activities, the same scripted answers)",
      figure:
        aiSdk && plain && aiSdkRatio
          ? `${aiSdk.perTripOverheadMs.p50} ms vs ${plain.perTripOverheadMs.p50} ms: ${formatRatio(aiSdkRatio)}`
          : "not measured",
      status: aiSdkRatio ? judgeInterval(aiSdkRatio, { atMost: 1.1 }) : "not measured",
      ...(aiSdkRatio ? { interval: aiSdkRatio } : {}),
    },
    {
      goal: "throughput at 200 concurrent runs ≥ 3× the better peer's (activities)",
      figure:
        mine200 && peers200.length
          ? `${mine200.runsPerSecond} runs/s; ${peers200.map((peer, i) => `${formatRatio(throughputRatios[i]!)} ${peer.name}'s ${peer.level.runsPerSecond}`).join("; ")}${ceiling}`
          : "not measured (--quick runs 10 at once)",
      status: mine200 && peers200.length ? judgeAll(throughputRatios, { atLeast: 3 }) : "not measured",
      ...(throughputRatios[0] ? { interval: throughputRatios[0] } : {}),
    },
    {
      goal: "worker CPU per trip at 200 concurrent runs ≤ 0.5× the leaner peer's (activities)",
      figure:
        mine200?.workerCpuMsPerTrip !== undefined && cpuPeers200.length
          ? `${mine200.workerCpuMsPerTrip} ms; ${cpuPeers200.map((peer, i) => `${formatRatio(cpuRatios[i]!)} ${peer.name}'s ${round(peer.level.workerCpuMsPerTrip!, 2)} ms`).join("; ")}`
          : "not measured",
      status: cpuRatios.length ? judgeAll(cpuRatios, { atMost: 0.5 }) : "not measured",
      ...(cpuRatios[0] ? { interval: cpuRatios[0] } : {}),
    },
    {
      goal: "0 MaxListenersExceededWarning in the run (the bench process and its throughput workers)",
      figure: warnings === undefined ? "not counted" : `${warnings}`,
      status: judgeExact(warnings === undefined ? null : warnings === 0),
    },
    {
      goal: "history bytes per trip ≤ 0.5× the better peer's (activities)",
      figure:
        plain && bytesPeer
          ? `${plain.history.bytesPerTrip} vs ${bytesPeer.name}'s ${bytesPeer.history.bytesPerTrip} (${round(plain.history.bytesPerTrip / bytesPeer.history.bytesPerTrip, 2)}×; exact: a history's size does not vary with load)`
          : "not measured",
      status: judgeExact(
        plain && bytesPeer ? plain.history.bytesPerTrip <= 0.5 * bytesPeer.history.bytesPerTrip : null,
      ),
    },
    {
      goal: "1,000 concurrent runs on one worker, no errors",
      figure: thousand
        ? `${thousand.completed} of ${1000 * thousand.rounds} completed, ${thousand.errors} errors, worker peak RSS ${thousand.workerRssMiB.peak} MiB`
        : "not run (--quick)",
      status: judgeExact(thousand ? thousand.errors === 0 && thousand.completed === 1000 * thousand.rounds : null),
    },
    ...streamingGoals(results.streaming),
  ];
}
