/** An eval's progress bar, polling `GET /api/evals/:id` until it is done, then its report link. */
import { useEffect, useState } from "preact/hooks";
import type { EvalProgress } from "../../../api-types.js";
import { getJson, segment } from "../api.js";

/** How often a running eval's progress is asked for. */
const POLL_MS = 500;

/** Follows eval `id` (from `initial`, when known). */
export function EvalProgressBar({ id, initial }: { id: string; initial?: EvalProgress }) {
  const [progress, setProgress] = useState<EvalProgress | undefined>(initial);
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (initial?.done) return;
    let stopped = false;
    let timer: number | undefined;
    const poll = async () => {
      try {
        const next = await getJson<EvalProgress>(`/api/evals/${segment(id)}`);
        if (stopped) return;
        setProgress(next);
        if (next.done) return;
      } catch (e) {
        if (stopped) return;
        setError((e as Error).message);
      }
      timer = window.setTimeout(poll, POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, [id]);
  const total = progress?.total ?? 0;
  const finished = progress?.finished ?? 0;
  return (
    <span class="eval-progress" data-testid="eval" data-eval-id={id} data-done={progress?.done ? "true" : "false"}>
      <progress data-testid="eval-progress" max={Math.max(total, 1)} value={finished} />
      <span data-testid="eval-count">
        {finished}/{total}
      </span>
      {progress?.error && (
        <span class="error" data-testid="eval-error">
          {progress.error}
        </span>
      )}
      {error && <span class="error">{error}</span>}
      {progress?.reportUrl && (
        <a href={progress.reportUrl} target="_blank" rel="noreferrer" data-testid="open-report">
          Open report
        </a>
      )}
    </span>
  );
}
