/**
 * Two eval reports side by side (`#/compare?a=<baseline>&b=<current>`): per scorer both pass
 * rates with their 95% intervals, the difference and its significance (the eval's own
 * `compareReports`), the cases that changed, and the two HTML reports.
 */
import type { CompareResponse, EvalHeading } from "../../../api-types.js";
import { segment } from "../api.js";
import * as fmt from "../format.js";
import { href } from "../route.js";
import { useFetch } from "../use-fetch.js";

/** An eval by what it ran: "coach-five · studio-coach · 12/6/2026, 9:12 AM" (its agent's version is in its head). */
const title = (h: EvalHeading) => `${h.dataset ?? "(dataset not recorded)"} · ${h.agent} · ${fmt.time(h.startedAt)}`;

const rate = (r: CompareResponse["scorers"][number]["baseline"]) =>
  r.rate === null || !r.interval
    ? `${r.passed}/${r.total} (nothing judged)`
    : `${r.passed}/${r.total} · ${fmt.percent(r.rate)} (95% CI ${fmt.percent(r.interval[0])}–${fmt.percent(r.interval[1])})`;

/** The comparison view. */
export function ComparePage({ a, b }: { a: string; b: string }) {
  const comparison = useFetch<CompareResponse>(
    a && b ? `/api/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}` : undefined,
  );
  if (!a || !b)
    return (
      <p>
        Pick two evals on the <a href={href("evals")}>evals</a> page.
      </p>
    );
  if (comparison.error)
    return (
      <p class="error" data-testid="error">
        {comparison.error}
      </p>
    );
  const c = comparison.value;
  if (!c) return <p>Loading…</p>;
  const changed = [
    ...c.regressions.map((x) => ({ ...x, kind: "regression" })),
    ...c.fixes.map((x) => ({ ...x, kind: "fix" })),
  ];
  return (
    <section data-testid="comparison">
      <h2 data-testid="compare-title">
        {title(c.headings.a)} → {title(c.headings.b)}
      </h2>
      <div class="compare-heads">
        {(["a", "b"] as const).map((side) => (
          <div key={side} data-testid={`compare-head-${side}`}>
            <span class="label">{side === "a" ? "baseline" : "current"}</span>
            <div>
              dataset <strong>{c.headings[side].dataset ?? "–"}</strong> · agent{" "}
              <strong>{c.headings[side].agent}</strong>
              {c.headings[side].agentVersion && ` (${c.headings[side].agentVersion})`}
            </div>
            <div class="hint">
              started {fmt.time(c.headings[side].startedAt)} · eval {c.headings[side].id}
            </div>
          </div>
        ))}
      </div>
      <table data-testid="compare-scorers">
        <thead>
          <tr>
            <th>scorer</th>
            <th>baseline</th>
            <th>current</th>
            <th class="num">difference</th>
            <th class="num">p (Fisher)</th>
            <th>verdict</th>
          </tr>
        </thead>
        <tbody>
          {c.scorers.map((s) => (
            <tr key={s.scorer} data-testid="compare-scorer" data-scorer={s.scorer} data-verdict={s.verdict}>
              <td>{s.scorer}</td>
              <td>{rate(s.baseline)}</td>
              <td>{rate(s.current)}</td>
              <td class="num">
                {s.difference === null ? "–" : `${s.difference > 0 ? "+" : ""}${fmt.percent(s.difference)}`}
              </td>
              <td class="num">{s.pValue === null ? "–" : s.pValue.toFixed(3)}</td>
              <td class={s.significant ? "significant" : ""}>{s.verdict}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p data-testid="compare-summary">
        {c.regressions.length} regressions · {c.fixes.length} fixes · {c.unchanged.length} unchanged · {c.added.length}{" "}
        added · {c.removed.length} removed
      </p>
      {changed.length > 0 && (
        <ul data-testid="compare-cases">
          {changed.map((x) => (
            <li key={x.case} data-kind={x.kind}>
              {x.kind} <strong>{x.case}</strong>: {x.baseline} → {x.current}
              {x.withinNoise ? " (within noise)" : ""}
            </li>
          ))}
        </ul>
      )}
      <div class="side-by-side">
        {[a, b].map((id) => (
          <iframe key={id} title={`report ${id}`} data-testid="report-frame" src={`/api/reports/${segment(id)}`} />
        ))}
      </div>
    </section>
  );
}
