/**
 * A run as a conversation (`#/run/<workflowId>`): its header (agent, version, status, the
 * Temporal UI link), what can be done to it (cancel, fork, decide approvals), its items by trip,
 * and, while it runs, its live stream.
 */
import { useState } from "preact/hooks";
import type { ForkOrigin, RunView } from "../../../api-types.js";
import { postJson, segment } from "../api.js";
import * as fmt from "../format.js";
import { useMeta } from "../meta.js";
import { useFetch } from "../use-fetch.js";
import { Conversation } from "./conversation.js";
import { ForkDialog } from "./fork-dialog.js";
import { useLiveRun } from "./live-stream.js";
import { href } from "../route.js";
import { Timeline } from "./timeline.js";

/** The run view. */
export function RunPage({ workflowId }: { workflowId: string }) {
  const meta = useMeta();
  const base = `/api/runs/${segment(workflowId)}`;
  const run = useFetch<RunView>(base);
  const view = run.value?.workflowId === workflowId ? run.value : undefined;
  const running = view?.status === "running";
  const live = useLiveRun(workflowId, running, () => void run.reload());
  const [forking, setForking] = useState(false);
  const [deciding, setDeciding] = useState<string>();
  const [actionError, setActionError] = useState<string>();

  const act = async (path: string, body: unknown, busy?: string) => {
    setDeciding(busy);
    setActionError(undefined);
    try {
      await postJson(`${base}${path}`, body);
      await run.reload();
    } catch (error) {
      setActionError((error as Error).message);
    } finally {
      setDeciding(undefined);
    }
  };

  if (run.error && !view)
    return (
      <p class="error" data-testid="error">
        {run.error}
      </p>
    );
  if (!view) return <p>Loading…</p>;
  const trips = Math.max(0, ...view.trips.map((t) => t.trip));
  const { totals } = view;
  return (
    <article class="run" data-testid="run" data-status={view.status}>
      <header class="run-head">
        <h2 data-testid="run-id">{view.workflowId}</h2>
        <span data-testid="run-agent">{view.agent}</span>
        {view.version && <span data-testid="run-version">version {view.version}</span>}
        <span class={`status ${view.status}`} data-testid="run-status">
          {view.status}
        </span>
        {view.stopReason && <span data-testid="run-stop-reason">stopped: {view.stopReason}</span>}
        <span data-testid="run-totals">
          {totals.trips} {totals.trips === 1 ? "trip" : "trips"} · {fmt.tokens(totals.tokens)} tokens ·{" "}
          {fmt.cost(totals.cost)}
        </span>
        {running && (
          <span class={`live-dot ${live.connected ? "on" : ""}`} data-testid="live">
            {live.connected ? "live" : "connecting…"}
          </span>
        )}
        <a href={view.temporalUiUrl} target="_blank" rel="noreferrer" data-testid="temporal-link">
          Temporal UI
        </a>
        {running && (
          <button data-testid="cancel" onClick={() => act("/cancel", {})}>
            Cancel run
          </button>
        )}
        {meta.canFork && trips > 0 && !running && (
          <button data-testid="fork" onClick={() => setForking(true)}>
            Fork…
          </button>
        )}
      </header>
      {view.session && (
        <p class="hint" data-testid="session-runs">
          A session: one conversation across {view.session.runs.length}{" "}
          {view.session.runs.length === 1 ? "run" : "runs"} (continue-as-new).
        </p>
      )}
      {view.forkedFrom && <ForkedFrom origin={view.forkedFrom} />}
      {view.error && (
        <div class="run-error" data-testid="run-error" data-type={view.error.type}>
          <strong>{view.error.type}</strong>
          <p>{view.error.message}</p>
        </div>
      )}
      {actionError && (
        <p class="error" data-testid="action-error">
          {actionError}
        </p>
      )}
      {!view.encrypted && <Timeline timeline={view.timeline} />}
      {view.encrypted ? (
        <p class="encrypted" data-testid="encrypted">
          This run is encrypted: start the studio with the worker's codec to read it.
        </p>
      ) : (
        <Conversation
          items={view.items}
          trips={view.trips}
          live={live.text}
          actions={{
            as: meta.as,
            deciding,
            decide: (callId, decision, reason) =>
              act(`/approvals/${segment(callId)}`, { decision, ...(reason ? { reason } : {}) }, callId),
          }}
        />
      )}
      {forking && (
        <ForkDialog workflowId={view.workflowId} agent={view.agent} trips={trips} onClose={() => setForking(false)} />
      )}
    </article>
  );
}

/** A fork's origin: a link to the run it came from, the trip made again, and what was changed for it. */
function ForkedFrom({ origin }: { origin: ForkOrigin }) {
  const { agent, instructions, model, modelSettings } = origin.changes;
  const changed = agent || instructions || model || modelSettings;
  return (
    <div class="fork-origin" data-testid="forked-from">
      Forked from{" "}
      <a href={href("run", origin.workflowId)} data-testid="forked-from-link">
        {origin.workflowId}
      </a>{" "}
      at trip {origin.atTrip}
      {changed ? ", with:" : ", unchanged."}
      {changed && (
        <ul data-testid="fork-changes">
          {agent && <li data-testid="change-agent">agent {agent}</li>}
          {model && <li data-testid="change-model">model {model}</li>}
          {modelSettings && <li data-testid="change-settings">model settings {JSON.stringify(modelSettings)}</li>}
          {instructions && (
            <li data-testid="change-instructions">
              instructions:
              <pre>{instructions}</pre>
            </li>
          )}
        </ul>
      )}
    </div>
  );
}
