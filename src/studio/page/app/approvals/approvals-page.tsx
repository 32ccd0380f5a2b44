/**
 * The approvals queue (`#/approvals`): every tool call waiting for a person across the running
 * runs, oldest first, each with its run's first words, its input, and approve or reject (with a
 * reason) as `--as`. Polled every few seconds, as the runs list is.
 */
import { useEffect, useState } from "preact/hooks";
import type { ApprovalsResponse, QueuedApproval } from "../../../api-types.js";
import { postJson, segment } from "../api.js";
import * as fmt from "../format.js";
import { useMeta } from "../meta.js";
import { href } from "../route.js";
import { useFetch } from "../use-fetch.js";
import { Approval } from "../run/items.js";

/** How often the queue is read again. */
const REFRESH_MS = 3000;

/** The queue view. */
export function ApprovalsPage() {
  const queue = useFetch<ApprovalsResponse>("/api/approvals");
  const { reload } = queue;
  useEffect(() => {
    const timer = window.setInterval(() => void reload(), REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [reload]);
  const approvals = queue.value?.approvals ?? [];
  return (
    <section>
      <h2>Approvals</h2>
      <p class="hint">Tool calls waiting for a person, across the running runs, the oldest first.</p>
      {queue.error && (
        <p class="error" data-testid="error">
          {queue.error}
        </p>
      )}
      {queue.value?.truncated && (
        <p class="hint" data-testid="approvals-truncated">
          More runs are running than one look reads: the newest 1,000 were asked.
        </p>
      )}
      <div class="queue" data-testid="approvals">
        {approvals.map((approval) => (
          <QueuedCall key={`${approval.workflowId}/${approval.callId}`} approval={approval} onDecided={reload} />
        ))}
      </div>
      {queue.value && approvals.length === 0 && <p data-testid="no-approvals">Nothing waits for approval.</p>}
    </section>
  );
}

function QueuedCall({ approval, onDecided }: { approval: QueuedApproval; onDecided: () => Promise<void> }) {
  const meta = useMeta();
  const [deciding, setDeciding] = useState(false);
  const [error, setError] = useState<string>();
  const decide = async (callId: string, decision: "approve" | "reject", reason?: string) => {
    setDeciding(true);
    setError(undefined);
    try {
      await postJson(`/api/runs/${segment(approval.workflowId)}/approvals/${segment(callId)}`, {
        decision,
        ...(reason ? { reason } : {}),
      });
      await onDecided();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setDeciding(false);
    }
  };
  return (
    <article
      class="queued"
      data-testid="queued-approval"
      data-workflow-id={approval.workflowId}
      data-call-id={approval.callId}
    >
      <header>
        <a href={href("run", approval.workflowId)} data-testid="open-run">
          {approval.firstWords ?? approval.workflowId}
        </a>{" "}
        <span class="hint">
          {approval.agents.join(" → ") || approval.agent} · trip {approval.trip} · started{" "}
          {fmt.time(approval.startTime)}
        </span>
      </header>
      <span class="label">{approval.tool} input</span>
      <pre data-testid="queued-input">{fmt.json(approval.input)}</pre>
      <Approval
        item={{ type: "approval", callId: approval.callId, tool: approval.tool }}
        actions={{
          as: meta.as,
          decide: (callId, decision, reason) => void decide(callId, decision, reason),
          deciding: deciding ? approval.callId : undefined,
        }}
      />
      {error && (
        <p class="error" data-testid="queued-error">
          {error}
        </p>
      )}
    </article>
  );
}
