/** The benchmark's tables: printed with console.table, and returned as Markdown (for the README). */
import type { LongRunFigures } from "./long-runs.js";
import type { OverheadFigures } from "./overhead.js";
import type { benchStreaming } from "./streaming.js";
import type { ThroughputFigures } from "./throughput.js";
import { round } from "./lib.js";

export interface BenchResults {
  machine: { cpus: number; cpuModel?: string; memoryGiB: number; node: string; loadAverageAtStart?: number[]; loadAverageAtEnd?: number[] };
  quick: boolean;
  overhead: OverheadFigures;
  peer?: OverheadFigures | { error: string };
  streaming?: Awaited<ReturnType<typeof benchStreaming>>;
  longRuns?: LongRunFigures[];
  throughput?: ThroughputFigures;
}

type Row = Record<string, string | number>;

const OURS = "durable-agent";
const PEER = "@temporalio/ai-sdk";
const ratio = (ours: number, peer: number | undefined) => (peer ? round(ours / peer, 2) : "n/a");

export function report(results: BenchResults): string {
  const { overhead: ours } = results;
  const peer = results.peer && "runs" in results.peer ? results.peer : undefined;
  const sections: string[] = [];
  const table = (title: string, rows: Row[]) => {
    console.log(`\n${title}`);
    console.table(rows);
    sections.push(`**${title}**\n\n${markdownTable(rows)}`);
  };

  const overheadRow = (name: string, f: OverheadFigures): Row => ({
    "": name,
    "floor run p50": f.floorRunMs.p50,
    "durable run p50": f.durableRunMs.p50,
    "durable run p95": f.durableRunMs.p95,
    "overhead/trip p50": f.perTripOverheadMs.p50,
    "overhead/trip p95": f.perTripOverheadMs.p95,
  });
  table(
    `Per-trip overhead over the in-process floor, ms (${ours.trips} trips, ${ours.toolCalls} tool calls, ${ours.runs} runs each)`,
    [
      overheadRow(OURS, ours),
      ...(peer ? [overheadRow(PEER, peer), { "": "ours / peer", "overhead/trip p50": ratio(ours.perTripOverheadMs.p50, peer.perTripOverheadMs.p50), "overhead/trip p95": ratio(ours.perTripOverheadMs.p95, peer.perTripOverheadMs.p95) }] : []),
    ],
  );

  const historyRow = (name: string, f: OverheadFigures): Row => ({
    "": name,
    "events/run": f.history.events,
    "bytes/run": f.history.bytes,
    "events/trip": f.history.eventsPerTrip,
    "bytes/trip": f.history.bytesPerTrip,
    "events/tool call": f.history.eventsPerToolCall,
    "bytes/tool call": f.history.bytesPerToolCall,
  });
  table("History of one run", [
    historyRow(OURS, ours),
    ...(peer
      ? [
          historyRow(PEER, peer),
          {
            "": "ours / peer",
            "events/run": ratio(ours.history.events, peer.history.events),
            "bytes/run": ratio(ours.history.bytes, peer.history.bytes),
            "events/trip": ratio(ours.history.eventsPerTrip, peer.history.eventsPerTrip),
            "bytes/trip": ratio(ours.history.bytesPerTrip, peer.history.bytesPerTrip),
          },
        ]
      : []),
  ]);

  const timelineRow = (name: string, f: OverheadFigures, model: string, tool: string): Row => ({
    "": name,
    "run/trip": f.timelinePerTripMs.run,
    "model activity/trip": f.timelinePerTripMs.activities[model] ?? 0,
    "tool activity/trip": f.timelinePerTripMs.activities[tool] ?? 0,
    "workflow tasks/trip": f.timelinePerTripMs.workflowTasks,
    "of which waiting to start": f.timelinePerTripMs.workflowTaskWait ?? "",
    "floor run/trip": round(f.floorRunMs.p50 / f.trips),
  });
  table("Where a durable trip's time goes, ms (history timestamps, mean; activities scheduled → completed)", [
    timelineRow(OURS, ours, "model.call", "tool.execute"),
    ...(peer ? [timelineRow(PEER, peer, "invokeModel", "recordStep")] : []),
  ]);

  if (results.throughput) {
    table(
      `Throughput: N runs started at once, one worker (child process; ${Object.entries(results.throughput.workerOptions)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")})`,
      results.throughput.levels.map((l) => ({
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
    );
  }

  if (results.longRuns) {
    table(
      "Long runs: history per trip as the conversation grows",
      results.longRuns.map((r) => ({ trips: r.trips, events: r.events, bytes: r.bytes, "runs in chain": r.runsInChain, "events/trip": r.eventsPerTrip, "bytes/trip": r.bytesPerTrip })),
    );
  }

  if (results.streaming) {
    const s = results.streaming;
    table("Streaming (3-trip run)", [
      {
        "first delta latency p50 ms": s.firstDeltaLatencyMs.p50,
        "first delta latency p95 ms": s.firstDeltaLatencyMs.p95,
        "history events/trip off": s.historyPerTrip.off.events,
        "history events/trip on": s.historyPerTrip.on.events,
        "bytes/trip added by streaming": s.streamingAddsPerTrip.bytes,
      },
    ]);
  }

  table("Goals (reported, not tuned to)", goals(results, peer));
  if (results.peer && !peer) sections.push(`The peer did not run: ${(results.peer as { error: string }).error}`);
  const m = results.machine;
  const load = m.loadAverageAtStart ? `; load average ${m.loadAverageAtStart[0]} at the start, ${m.loadAverageAtEnd?.[0] ?? "?"} at the end` : "";
  sections.unshift(`Machine: ${m.cpus} cores (${m.cpuModel ?? "?"}), ${m.memoryGiB} GiB, Node ${m.node}; Temporal dev server (SQLite in memory) on the same machine${load}${results.quick ? "; --quick" : ""}.`);
  return sections.join("\n\n") + "\n";
}

function goals(results: BenchResults, peer: OverheadFigures | undefined): Row[] {
  const ours = results.overhead;
  const status = (met: boolean | undefined) => (met === undefined ? "not measured" : met ? "met" : "not met");
  const thousand = results.throughput?.levels.find((l) => l.concurrentRuns === 1000);
  return [
    {
      goal: "history events/trip ≤ the peer's",
      figure: peer ? `${ours.history.eventsPerTrip} vs ${peer.history.eventsPerTrip}` : `${ours.history.eventsPerTrip} (peer not run)`,
      status: status(peer ? ours.history.eventsPerTrip <= peer.history.eventsPerTrip : undefined),
    },
    {
      goal: "per-trip overhead ours/peer ≤ 1.0 (p50)",
      figure: peer ? `${ratio(ours.perTripOverheadMs.p50, peer.perTripOverheadMs.p50)} (${ours.perTripOverheadMs.p50} vs ${peer.perTripOverheadMs.p50} ms)` : "peer not run",
      status: status(peer ? ours.perTripOverheadMs.p50 <= peer.perTripOverheadMs.p50 : undefined),
    },
    { goal: "per-trip overhead ≤ 10 ms over the floor (p50)", figure: `${ours.perTripOverheadMs.p50} ms`, status: status(ours.perTripOverheadMs.p50 <= 10) },
    {
      goal: "1,000 concurrent runs on one worker, no errors",
      figure: thousand ? `${thousand.completed} completed, ${thousand.errors} errors, worker peak RSS ${thousand.workerRssMiB.peak} MiB` : "not run (--quick)",
      status: status(thousand ? thousand.errors === 0 && thousand.completed === 1000 : undefined),
    },
  ];
}

function markdownTable(rows: Row[]): string {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cell = (value: string | number | undefined) => (value === undefined ? "" : String(value).replace(/\|/g, "\\|"));
  return [
    `| ${columns.map((c) => cell(c)).join(" | ")} |`,
    `| ${columns.map(() => "---").join(" | ")} |`,
    ...rows.map((row) => `| ${columns.map((c) => cell(row[c])).join(" | ")} |`),
  ].join("\n");
}
