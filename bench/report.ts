/** The benchmark's tables: printed with console.table, and returned as Markdown (for docs/performance.md); the goals of issue 16. */
import type { LongRunFigures } from "./long-runs.js";
import { AI_SDK_CONTENDER } from "./ai-sdk-contender.js";
import type { ContenderFigures, OverheadFigures } from "./overhead.js";
import type { StreamingError, StreamingFigures } from "./streaming.js";
import { streamingGoals, streamingRows } from "./streaming-report.js";
import type { ThroughputFigures } from "./throughput.js";
import { round } from "./lib.js";
import { markdownTable } from "./markdown-table.js";

/** The figures on one server setting. */
export interface ServerFigures {
  setting: ServerSetting;
  /** The dynamic config values the dev server was started with (on top of the CLI's defaults). */
  dynamicConfig: string[];
  overhead: ContenderFigures[];
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
  goals?: Goal[];
}

/** One goal of issue 16: what it asks, the figure measured, and whether it was met (null: not measured). */
export interface Goal {
  goal: string;
  figure: string;
  met: boolean | null;
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
const ratio = (ours: number, peer: number | undefined) => (peer ? round(ours / peer, 2) : "n/a");

export function report(results: BenchResults): string {
  const sections: string[] = [];
  const table = (title: string, rows: Row[]) => {
    console.log(`\n${title}`);
    console.table(rows);
    sections.push(`**${title}**\n\n${markdownTable(rows)}`);
  };

  const first = measured(results.servers[0]?.overhead)[0];
  table(
    `Per-trip overhead over each library's own in-process floor, ms (${first?.trips ?? "?"} trips, ${first?.toolCalls ?? "?"} tool calls, ${first?.runs ?? "?"} runs each; server: default = the CLI's dev server as it ships, tuned = ours)`,
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
              "÷ better peer (p50)": PEERS.includes(f.library)
                ? ""
                : ratio(f.perTripOverheadMs.p50, peer?.perTripOverheadMs.p50),
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
    table(
      `Throughput: N runs started at once, one worker per library (child process; every library at each level in turn; ${Object.entries(
        results.throughput[0]!.workerOptions,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}; ${tuned?.setting} server)`,
      results.throughput.flatMap((t) =>
        t.levels.map((l) => ({
          "": t.library === "durable-agent" ? `durable-agent (${t.execution})` : t.library,
          "concurrent runs": l.concurrentRuns,
          completed: l.completed,
          errors: l.errors,
          "runs/s": l.runsPerSecond,
          "trips/s": l.tripsPerSecond,
          "latency p50 ms": l.latencyMs.p50,
          "latency p95 ms": l.latencyMs.p95,
          "worker RSS idle MiB": l.workerRssMiB.idle,
          "worker RSS peak MiB": l.workerRssMiB.peak,
        })),
      ),
    );
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
    `Goals (reported, not tuned to; ${tuned?.setting} server)`,
    results.goals.map((g) => ({
      goal: g.goal,
      figure: g.figure,
      status: g.met === null ? "not measured" : g.met ? "met" : "not met",
    })),
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

/** The goals of issue 16, on the tuned server, against the better peer (the one with the lower per-trip overhead). */
export function goals(results: BenchResults): Goal[] {
  const tuned = results.servers.find((s) => s.setting === "tuned") ?? results.servers[0];
  const figures = measured(tuned?.overhead);
  const ours = (execution: string) =>
    figures.find((f) => f.library === "durable-agent" && f.name.endsWith(`(${execution})`));
  const peer = betterPeer(tuned?.overhead ?? []);
  const peerName = peer ? `${peer.name}'s` : "the better peer's (not run)";
  const overheadVsPeer = (execution: string, factor: number): Goal => {
    const mine = ours(execution);
    return {
      goal: `per-trip overhead p50 with ${execution} ≤ ${factor}× the better peer's`,
      figure:
        mine && peer
          ? `${mine.perTripOverheadMs.p50} ms vs ${peerName} ${peer.perTripOverheadMs.p50} ms (${ratio(mine.perTripOverheadMs.p50, peer.perTripOverheadMs.p50)}×)`
          : "not measured",
      met: mine && peer ? mine.perTripOverheadMs.p50 <= factor * peer.perTripOverheadMs.p50 : null,
    };
  };
  const local = ours("local model and tools");
  const at200 = (library: string) =>
    results.throughput
      ?.find((t) => t.library === library && (t.execution ?? "activities") === "activities")
      ?.levels.find((l) => l.concurrentRuns === 200);
  const mine200 = at200("durable-agent");
  const peers200 = PEERS.map((p) => ({ p, level: at200(p) })).filter((x) => x.level);
  const bestPeer200 = peers200.sort((a, b) => b.level!.runsPerSecond - a.level!.runsPerSecond)[0];
  const plain = ours("activities");
  const aiSdk = figures.find((f) => f.name === AI_SDK_CONTENDER);
  const bytesPeer = figures
    .filter((f) => PEERS.includes(f.library))
    .sort((a, b) => a.history.bytesPerTrip - b.history.bytesPerTrip)[0];
  const thousand = results.throughput
    ?.find((t) => t.library === "durable-agent")
    ?.levels.find((l) => l.concurrentRuns === 1000);
  return [
    {
      goal: "per-trip overhead p50 ≤ 10 ms over the floor with local model and tools",
      figure: local ? `${local.perTripOverheadMs.p50} ms` : "not measured",
      met: local ? local.perTripOverheadMs.p50 <= 10 : null,
    },
    overheadVsPeer("local tools", 0.5),
    overheadVsPeer("activities", 1.0),
    {
      goal: "per-trip overhead p50 of an AI SDK model ≤ 1.1× ai.openai()'s (activities, the same scripted answers)",
      figure:
        aiSdk && plain
          ? `${aiSdk.perTripOverheadMs.p50} ms vs ${plain.perTripOverheadMs.p50} ms (${ratio(aiSdk.perTripOverheadMs.p50, plain.perTripOverheadMs.p50)}×)`
          : "not measured",
      met: aiSdk && plain ? aiSdk.perTripOverheadMs.p50 <= 1.1 * plain.perTripOverheadMs.p50 : null,
    },
    {
      goal: "throughput at 200 concurrent runs ≥ 2× the better peer's (activities)",
      figure:
        mine200 && bestPeer200
          ? `${mine200.runsPerSecond} vs ${bestPeer200.p}'s ${bestPeer200.level!.runsPerSecond} runs/s (${ratio(mine200.runsPerSecond, bestPeer200.level!.runsPerSecond)}×)`
          : "not measured (--quick runs 10 at once)",
      met: mine200 && bestPeer200 ? mine200.runsPerSecond >= 2 * bestPeer200.level!.runsPerSecond : null,
    },
    {
      goal: "history bytes per trip ≤ 0.5× the better peer's (activities)",
      figure:
        plain && bytesPeer
          ? `${plain.history.bytesPerTrip} vs ${bytesPeer.name}'s ${bytesPeer.history.bytesPerTrip} (${ratio(plain.history.bytesPerTrip, bytesPeer.history.bytesPerTrip)}×)`
          : "not measured",
      met: plain && bytesPeer ? plain.history.bytesPerTrip <= 0.5 * bytesPeer.history.bytesPerTrip : null,
    },
    {
      goal: "1,000 concurrent runs on one worker, no errors",
      figure: thousand
        ? `${thousand.completed} completed, ${thousand.errors} errors, worker peak RSS ${thousand.workerRssMiB.peak} MiB`
        : "not run (--quick)",
      met: thousand ? thousand.errors === 0 && thousand.completed === 1000 : null,
    },
    ...streamingGoals(results.streaming),
  ];
}
