/** The streaming table and the goals of issue 23, from the streaming figures. */
import type { StreamingError, StreamingFigures } from "./streaming.js";

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

/** A goal: what it asks, the figure measured, and whether it was met (null: not measured). */
interface Goal {
  goal: string;
  figure: string;
  met: boolean | null;
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
      met: added !== undefined ? added <= 4 : null,
    },
    {
      goal: "a subscriber adds no history events: no poll updates, no publish signals",
      figure: ours ? `${ours.perTrip.updates} updates/trip, ${ours.perTrip.signals} signals/trip` : "not measured",
      met: ours ? ours.perTrip.updates === 0 && ours.perTrip.signals === 0 : null,
    },
    {
      goal: "first delta at the client p50 ≤ 150 ms after the model's first token (model at 200 tokens/s)",
      figure: ours?.firstDeltaLatencyMs
        ? `p50 ${ours.firstDeltaLatencyMs.p50} ms, p95 ${ours.firstDeltaLatencyMs.p95} ms`
        : "not measured",
      met: ours?.firstDeltaLatencyMs ? ours.firstDeltaLatencyMs.p50 <= 150 : null,
    },
    {
      goal: "the client keeps up with a model at 200 tokens/s: the answer's last text p50 ≤ 300 ms after the model's last chunk",
      figure: ours?.lastDeltaLagMs
        ? `p50 ${ours.lastDeltaLagMs.p50} ms, p95 ${ours.lastDeltaLagMs.p95} ms`
        : "not measured",
      met: ours?.lastDeltaLagMs ? ours.lastDeltaLagMs.p50 <= 300 : null,
    },
    {
      goal: "billable actions per streamed trip (signals + updates + workflow tasks + heartbeats) at most the cheaper peer's streaming (reported beside: the peers' first-delta latency)",
      figure:
        ours && cheapestPeer
          ? `${ours.perTrip.billableActions} vs ${cheapestPeer.name}'s ${cheapestPeer.perTrip.billableActions} (its first delta p50 ${cheapestPeer.firstDeltaLatencyMs?.p50 ?? "?"} ms, ours ${ours.firstDeltaLatencyMs?.p50 ?? "?"} ms)`
          : "not measured",
      met: ours && cheapestPeer ? billable(ours) <= billable(cheapestPeer) : null,
    },
  ];
}
