/**
 * The streaming table and the goals of issue 23, from the streaming figures: the latency goals
 * judged on the whole 95% interval of the median over the runs, the others on exact counts.
 */
import type { StreamingError, StreamingFigures } from "./streaming.js";
import { formatInterval, judgeExact, judgeInterval, medianInterval, type Goal, type Interval } from "./stats/index.js";

type Row = Record<string, string | number>;

/** One row per subject, per streamed trip. */
export function streamingRows(all: (StreamingFigures | StreamingError)[]): Row[] {
  return all.map((f): Row =>
    "error" in f
      ? { subject: f.name, error: f.error }
      : {
          subject: f.name,
          "events/trip": f.perTrip.historyEvents,
          "bytes/trip": f.perTrip.historyBytes,
          "workflow tasks/trip": f.perTrip.workflowTasks ?? "n/a",
          "signals/trip": f.perTrip.signals ?? "n/a",
          "updates/trip": f.perTrip.updates ?? "n/a",
          "heartbeats/trip": f.perTrip.activityHeartbeats ?? "n/a",
          "billable actions/trip": f.perTrip.billableActions ?? "n/a",
          "queries/trip": f.perTrip.queries ?? "n/a",
          "first delta p50 ms": f.firstDeltaLatencyMs?.p50 ?? "",
          "first delta p95 ms": f.firstDeltaLatencyMs?.p95 ?? "",
          "last delta lag p50 ms": f.lastDeltaLagMs?.p50 ?? "",
          "run p50 ms": f.runMs?.p50 ?? "",
          "worker CPU ms/trip": f.perTrip.workerCpuMs,
        },
  );
}

/** A latency goal on the median over the runs: "p50 72 ms (68–80) over 10 runs, p95 80 ms", judged on the interval. */
function latencyGoal(goal: string, samples: number[] | undefined, p95: number | undefined, atMost: number): Goal {
  if (!samples?.length) return { goal, figure: "not measured", status: "not measured" };
  const interval: Interval = medianInterval(samples);
  return {
    goal,
    figure: `p50 ${formatInterval(interval, " ms", 0)} over ${interval.rounds} runs, p95 ${p95} ms`,
    status: judgeInterval(interval, { atMost }),
    interval,
  };
}

/** The goals of issue 23. */
export function streamingGoals(all: (StreamingFigures | StreamingError)[] | undefined): Goal[] {
  const figures = all?.filter((f): f is StreamingFigures => !("error" in f));
  const find = (name: string) => figures?.find((f) => f.name === name);
  const ours = find("durable-agent");
  const plain = find("durable-agent (unstreamed)");
  // The Temporal peers: WorkflowAgent bills no Temporal actions.
  const peers = (figures ?? []).filter((f) => f.library !== "durable-agent" && f.perTrip.billableActions !== undefined);
  const billable = (f: StreamingFigures) => f.perTrip.billableActions ?? 0;
  const cheapestPeer = [...peers].sort((a, b) => billable(a) - billable(b))[0];
  const added =
    ours && plain ? Math.round((ours.perTrip.historyEvents - plain.perTrip.historyEvents) * 10) / 10 : undefined;
  return [
    {
      goal: "a streamed trip has at most 4 more history events than the same trip unstreamed",
      figure:
        added !== undefined
          ? `${added} more (${ours!.perTrip.historyEvents} vs ${plain!.perTrip.historyEvents} events/trip)`
          : "not measured",
      status: judgeExact(added !== undefined ? added <= 4 : null),
    },
    {
      goal: "a subscriber adds no history events: no poll updates, no publish signals",
      figure: ours ? `${ours.perTrip.updates} updates/trip, ${ours.perTrip.signals} signals/trip` : "not measured",
      status: judgeExact(ours ? ours.perTrip.updates === 0 && ours.perTrip.signals === 0 : null),
    },
    latencyGoal(
      "first delta at the client p50 ≤ 150 ms after the model's first token (model at 200 tokens/s)",
      ours?.firstDeltaLatencySamplesMs,
      ours?.firstDeltaLatencyMs?.p95,
      150,
    ),
    latencyGoal(
      "the client keeps up with a model at 200 tokens/s: the answer's last text p50 ≤ 300 ms after the model's last chunk",
      ours?.lastDeltaLagSamplesMs,
      ours?.lastDeltaLagMs?.p95,
      300,
    ),
    {
      goal: "billable actions per streamed trip (signals + updates + workflow tasks + heartbeats) at most the cheaper peer's streaming (reported beside: the peers' first-delta latency)",
      figure:
        ours && cheapestPeer
          ? `${ours.perTrip.billableActions} vs ${cheapestPeer.name}'s ${cheapestPeer.perTrip.billableActions} (its first delta p50 ${cheapestPeer.firstDeltaLatencyMs?.p50 ?? "?"} ms, ours ${ours.firstDeltaLatencyMs?.p50 ?? "?"} ms)`
          : "not measured",
      status: judgeExact(ours && cheapestPeer ? billable(ours) <= billable(cheapestPeer) : null),
    },
  ];
}
