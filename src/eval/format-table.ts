/** The report as a terminal table: one line per case and trial, a scorer per column, then pass rates. */
import type { EvalReportData, TrialOutcome } from "./report-schema.js";
import type { ObservedToolCall } from "./eval-record.js";

/** 0.5 → "50%", 0.8333 → "83.3%", null → "n/a". */
export function percent(rate: number | null): string {
  return rate === null ? "n/a" : `${(rate * 100).toFixed(1).replace(/\.0$/, "")}%`;
}

/** `update_plan ok, update_plan refused (moonwalks is not in the library)`, or `none`. */
export function describeToolCalls(calls: readonly ObservedToolCall[] | undefined): string {
  if (!calls || calls.length === 0) return "none";
  return calls
    .map(
      (call) =>
        `${call.name} ${call.status}${call.reason ? ` (${call.reason})` : call.error ? ` (${call.error})` : ""}`,
    )
    .join(", ");
}

const CELL: Record<TrialOutcome, string> = {
  pass: "pass",
  fail: "FAIL",
  "not-applicable": "n/a",
  error: "ERROR",
  "infrastructure-error": "INFRA",
};

function render(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => [...(row[column] ?? "")].length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** The report as plain text for a terminal. */
export function formatTable(report: EvalReportData): string {
  const scorers = report.scorers.map((s) => s.scorer);
  const header = ["case", "trial", ...scorers];
  const lines = report.runs.map((run) => [
    run.case,
    String(run.trial),
    ...scorers.map((scorer) => {
      const row = report.rows.find((r) => r.case === run.case && r.trial === run.trial && r.scorer === scorer);
      return row ? CELL[row.status] : "";
    }),
  ]);
  const rates = [
    "pass rate",
    "",
    ...report.scorers.map((s) => `${percent(s.passRate)} (${s.passed}/${s.passed + s.failed})`),
  ];
  const sections = [render([header, ...lines, rates])];
  if (report.trials > 1) {
    const perCase = report.cases.map((c) => [
      c.case,
      percent(c.passAt1),
      c.passHatK === null ? "n/a" : c.passHatK ? "yes" : "no",
      c.flaky ? "FLAKY" : "",
    ]);
    sections.push(render([["case", "pass@1", `pass^${report.trials}`, "flaky"], ...perCase]));
  }
  const t = report.totals;
  sections.push(
    `${report.agent}: ${t.cases} case(s) x ${report.trials} trial(s): pass rate ${percent(t.passRate)} (${t.passed} passed, ${t.failed} failed, ` +
      `${t.notApplicable} not applicable), ${t.errors} scorer error(s), ${t.infrastructureErrors} infrastructure error(s)` +
      (report.trials > 1
        ? `, pass^${report.trials} ${percent(t.passHatKRate)}, pass@1 ${percent(t.passAt1)}, ${t.flakyCases} flaky`
        : ""),
  );
  return sections.join("\n\n");
}
