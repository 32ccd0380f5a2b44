/** Pure: what changed between two reports, by case name. */
import { trialOutcome } from "./build-report.js";
import type { EvalReportData, EvalRow } from "./report-schema.js";

/** A case's standing in one report: pass (every judged trial passed), fail (a trial failed), or unknown (nothing judged, or errors only). */
export type CaseStanding = "pass" | "fail" | "unknown";

/** One case that went from pass to fail (a regression) or from fail to pass (a fix). */
export interface CaseChange {
  case: string;
  baseline: CaseStanding;
  current: CaseStanding;
  /** The scorers that changed the same way on this case. */
  scorers: string[];
}

/** What `compareReports` finds. */
export interface ReportComparison {
  /** Cases that passed in the baseline and fail now. */
  regressions: CaseChange[];
  /** Cases that failed in the baseline and pass now. */
  fixes: CaseChange[];
  /** Cases only in the current report. */
  added: string[];
  /** Cases only in the baseline. */
  removed: string[];
  /** Cases in both whose standing did not change between pass and fail. */
  unchanged: string[];
}

function standing(rows: readonly EvalRow[]): CaseStanding {
  const trials = [...new Set(rows.map((row) => row.trial))].map((trial) => trialOutcome(rows.filter((row) => row.trial === trial)));
  if (trials.includes("fail")) return "fail";
  return trials.includes("pass") ? "pass" : "unknown";
}

function standings(report: EvalReportData, caseName: string): { overall: CaseStanding; byScorer: Map<string, CaseStanding> } {
  const rows = report.rows.filter((row) => row.case === caseName);
  const scorers = [...new Set(rows.map((row) => row.scorer))];
  return { overall: standing(rows), byScorer: new Map(scorers.map((scorer) => [scorer, standing(rows.filter((row) => row.scorer === scorer))])) };
}

/** Regressions (pass → fail) and fixes (fail → pass) by case name, and the cases added and removed. */
export function compareReports(baseline: EvalReportData, current: EvalReportData): ReportComparison {
  const before = new Set(baseline.cases.map((c) => c.case));
  const after = current.cases.map((c) => c.case);
  const comparison: ReportComparison = { regressions: [], fixes: [], added: after.filter((name) => !before.has(name)), removed: [...before].filter((name) => !after.includes(name)), unchanged: [] };
  for (const name of after.filter((n) => before.has(n))) {
    const old = standings(baseline, name);
    const now = standings(current, name);
    const changed = (from: CaseStanding, to: CaseStanding) => [...now.byScorer].filter(([scorer, s]) => s === to && old.byScorer.get(scorer) === from).map(([scorer]) => scorer);
    if (old.overall === "pass" && now.overall === "fail") comparison.regressions.push({ case: name, baseline: "pass", current: "fail", scorers: changed("pass", "fail") });
    else if (old.overall === "fail" && now.overall === "pass") comparison.fixes.push({ case: name, baseline: "fail", current: "pass", scorers: changed("fail", "pass") });
    else comparison.unchanged.push(name);
  }
  return comparison;
}

/** The comparison as lines for a terminal. */
export function formatComparison(comparison: ReportComparison): string {
  const line = (mark: string, change: CaseChange) => `  ${mark} ${change.case}${change.scorers.length ? ` (${change.scorers.join(", ")})` : ""}`;
  return [
    `Compared with the baseline: ${comparison.regressions.length} regression(s), ${comparison.fixes.length} fix(es), ${comparison.added.length} added, ${comparison.removed.length} removed`,
    ...comparison.regressions.map((c) => line("regressed", c)),
    ...comparison.fixes.map((c) => line("fixed", c)),
    ...comparison.added.map((name) => `  added ${name}`),
    ...comparison.removed.map((name) => `  removed ${name}`),
  ].join("\n");
}
