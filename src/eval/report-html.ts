/**
 * `report.toHtml()`: the report as one self-contained page (inline CSS, no scripts, no network):
 * pass rates per scorer with 95% intervals, cases with pass^k and flakiness, the changes against a
 * baseline, and for each failing row the conversation a person reads to see why.
 */
import {
  caseChanges,
  compareReports,
  comparisonCounts,
  formatScorerComparison,
  type ReportComparison,
} from "./compare-reports.js";
import { formatRate, passRateInterval } from "./confidence.js";
import type { EvalReportData, EvalRow, EvalRun, TrialOutcome } from "./report-schema.js";

/** Options of `report.toHtml()`. */
export interface HtmlReportOptions {
  /** A report to compare with: its regressions, fixes and per-scorer changes are shown. */
  baseline?: EvalReportData;
  /** The page title; default "Eval report: <agent>". */
  title?: string;
}

const escape = (text: unknown): string =>
  String(text).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

const pct = (rate: number | null) => (rate === null ? "–" : `${Math.round(rate * 100)}%`);

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1d2330;background:#fafbfc}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px;border-bottom:1px solid #dde1e8;padding-bottom:4px}
.meta{color:#5b6475;margin-bottom:2px}table{border-collapse:collapse;background:#fff;margin:6px 0}
th,td{border:1px solid #dde1e8;padding:4px 8px;text-align:left;vertical-align:top}th{background:#f1f3f7}
.badge{display:inline-block;border-radius:3px;padding:0 6px;margin:0 2px;font-size:12px;font-weight:600}
.pass{background:#d9f2e1;color:#17663a}.fail{background:#fbdada;color:#9b1c1c}.not-applicable{background:#eceef2;color:#5b6475}
.error,.infrastructure-error{background:#fdeccc;color:#8a4b00}.better{color:#17663a;font-weight:600}.worse{color:#9b1c1c;font-weight:600}
.noise{color:#5b6475}.failure{background:#fff;border:1px solid #f0c2c2;border-left:4px solid #d64545;padding:8px 12px;margin:12px 0}
.msg{margin:4px 0;padding:4px 8px;border-radius:4px;white-space:pre-wrap}
.role{font-weight:600;margin-right:6px;text-transform:uppercase;font-size:11px;color:#5b6475}
.user{background:#eef3ff}.assistant{background:#f4f4f6}.tool{background:#f3fbf5;font-family:ui-monospace,monospace;font-size:12px}.system{background:#fffbe8}
.reprompt{background:#fff4e0;border:1px dashed #e0a030}.call{font-family:ui-monospace,monospace;font-size:12px}
`;

function badge(outcome: TrialOutcome | string): string {
  return `<span class="badge ${escape(outcome)}">${escape(outcome)}</span>`;
}

/** A table row of these cells (`th` for a header row). */
function tableRow(cells: readonly (string | number)[], cell: "td" | "th" = "td"): string {
  return `<tr>${cells.map((c) => `<${cell}>${c}</${cell}>`).join("")}</tr>`;
}

function scorersTable(report: EvalReportData): string {
  const rows = report.scorers.map((s) =>
    tableRow([
      escape(s.scorer),
      s.passed,
      s.failed,
      s.notApplicable,
      s.errors,
      s.infrastructureErrors,
      escape(formatRate(passRateInterval(s.passed, s.passed + s.failed))),
    ]),
  );
  const header = ["scorer", "passed", "failed", "n/a", "errors", "infra", "pass rate (95% Wilson interval)"];
  return `<table class="scorers">${tableRow(header, "th")}${rows.join("")}</table>`;
}

function casesTable(report: EvalReportData): string {
  const rows = report.cases.map((c) => {
    const runs = report.runs.filter((r) => r.case === c.case);
    const replay = runs
      .filter((r) => r.replay)
      .reduce(
        (sum, r) => ({ matched: sum.matched + r.replay!.matched, unmatched: sum.unmatched + r.replay!.unmatched }),
        { matched: 0, unmatched: 0 },
      );
    const hasReplay = runs.some((r) => r.replay);
    return tableRow([
      `${escape(c.case)}<div class="meta">${escape(c.input.slice(0, 120))}</div>`,
      c.outcomes.map(badge).join(""),
      pct(c.passAt1),
      c.passHatK === null ? "–" : c.passHatK ? "yes" : "no",
      c.flaky ? "<b>flaky</b>" : "",
      hasReplay ? `${replay.matched} matched, ${replay.unmatched} unmatched` : "",
    ]);
  });
  const header = ["case", "trials", "pass@1", `pass^${report.trials}`, "", "recorded tool calls"];
  return `<table class="cases">${tableRow(header, "th")}${rows.join("")}</table>`;
}

function comparisonSection(comparison: ReportComparison): string {
  const verdictClass = (v: string) => (v === "better" ? "better" : v === "worse" ? "worse" : "noise");
  const list = (title: string, items: string[]) =>
    items.length ? `<p><b>${title}</b>: ${items.map(escape).join(", ")}</p>` : "";
  const { regressions, fixes, withinNoise } = caseChanges(comparison); // only changes beyond noise are called regressions and fixes
  return [
    `<h2>Against the baseline</h2>`,
    `<p>${escape(comparisonCounts(comparison))}.</p>`,
    list(
      "Regressed",
      regressions.map((c) => `${c.case} (${c.scorers.join(", ")})`),
    ),
    list(
      "Fixed",
      fixes.map((c) => `${c.case} (${c.scorers.join(", ")})`),
    ),
    list(
      "Changed within noise",
      withinNoise.map((c) => `${c.case}: ${c.baseline} → ${c.current} (${c.scorers.join(", ")})`),
    ),
    `<ul class="scorer-changes">${comparison.scorers
      .map((c) => `<li class="${verdictClass(c.verdict)}">${escape(formatScorerComparison(c))}</li>`)
      .join("")}</ul>`,
  ].join("\n");
}

function messageHtml(message: Record<string, unknown>, index: number, firstUser: number): string {
  const role = String(message.role);
  const content = message.content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content.map((p: { type?: string; text?: string }) => (p.type === "text" ? p.text : `[${p.type}]`)).join("\n")
        : "";
  const calls = Array.isArray(message.toolCalls)
    ? (message.toolCalls as Array<{ name: string; arguments: string }>)
        .map((c) => `<div class="call">→ ${escape(c.name)}(${escape(c.arguments)})</div>`)
        .join("")
    : "";
  const reprompt = role === "user" && index > firstUser;
  const label = reprompt ? "re-prompt" : role === "tool" ? `tool ${String(message.name ?? "")}` : role;
  return `<div class="msg ${escape(role)}${reprompt ? " reprompt" : ""}"><span class="role">${escape(label)}</span>${escape(text)}${calls}</div>`;
}

function failureHtml(row: EvalRow, run: EvalRun | undefined): string {
  const calls = run?.toolCalls ?? [];
  const messages = (run?.messages ?? []) as Array<Record<string, unknown>>;
  const firstUser = messages.findIndex((m) => m.role === "user");
  const missing = row.evidence?.missingTools?.length
    ? `<p>Missing tools: ${row.evidence.missingTools.map(escape).join(", ")}</p>`
    : "";
  const claim = row.evidence?.claim ? `<p>Claim: “${escape(row.evidence.claim)}”</p>` : "";
  const heading =
    `<b>${escape(row.case)}</b> · trial ${row.trial} · ${escape(row.scorer)} ${badge("fail")} ` +
    `<span class="reason">${escape(row.reason ?? "")}</span>`;
  const status = (c: { status: string }) => (c.status === "ok" ? "pass" : c.status === "refused" ? "fail" : "error");
  const conversation = messages.length
    ? `<details open><summary>Conversation (${messages.length} messages)</summary>` +
      `${messages.map((m, i) => messageHtml(m, i, firstUser)).join("")}</details>`
    : run?.reply !== undefined
      ? `<div class="msg assistant"><span class="role">reply</span>${escape(run.reply)}</div>`
      : "";
  return `<div class="failure"><div>${heading}</div>
${missing}${claim}
<table class="tool-calls"><tr><th>trip</th><th>tool call</th><th>status</th><th>reason / error</th><th></th></tr>${
    calls.length
      ? calls
          .map(
            (c) =>
              `<tr><td>${c.trip}</td><td class="call">${escape(c.name)}(${escape(JSON.stringify(c.input))})</td>` +
              `<td><span class="badge ${status(c)}">${escape(c.status)}</span></td>` +
              `<td>${escape(c.reason ?? c.error ?? "")}</td><td>${c.replayed ? "replayed" : ""}</td></tr>`,
          )
          .join("")
      : `<tr><td colspan="5">no tool calls</td></tr>`
  }</table>
${conversation}
</div>`;
}

/** The report as one self-contained HTML page. */
export function toHtmlReport(report: EvalReportData, options: HtmlReportOptions = {}): string {
  const title = options.title ?? `Eval report: ${report.agent}`;
  const failures = report.rows.filter((row) => row.status === "fail");
  const t = report.totals;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${escape(title)}</title><style>${STYLE}</style></head>
<body>
<h1>${escape(title)}</h1>
<div class="meta">${report.cases.length} case(s) × ${report.trials} trial(s) · started ${escape(report.startedAt)} · ${(
    report.durationMs / 1000
  ).toFixed(1)} s</div>
<p class="totals">Pass rate <b>${pct(t.passRate)}</b> (${t.passed} passed, ${t.failed} failed, ${t.notApplicable} n/a, ${t.errors} scorer errors, ${
    t.infrastructureErrors
  } infrastructure errors) · pass@1 ${pct(t.passAt1)} · pass^${report.trials} ${pct(t.passHatKRate)} · ${t.flakyCases} flaky case(s)</p>
<h2>Scorers</h2>
${scorersTable(report)}
<h2>Cases</h2>
${casesTable(report)}
${options.baseline ? comparisonSection(compareReports(options.baseline, report)) : ""}
<h2>Failures (${failures.length})</h2>
${
  failures.length
    ? failures
        .map((row) =>
          failureHtml(
            row,
            report.runs.find((r) => r.case === row.case && r.trial === row.trial),
          ),
        )
        .join("\n")
    : "<p>None.</p>"
}
</body></html>
`;
}
