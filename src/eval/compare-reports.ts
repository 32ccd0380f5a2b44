/** Pure: what changed between two reports, by case name, and per scorer whether the pass rate changed beyond noise. */
import { trialOutcome } from "./build-report.js";
import { compareRates, formatRate, SIGNIFICANCE_LEVEL, type RateDifference } from "./confidence.js";
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
  /**
   * True when none of `scorers` changed its pass rate significantly in this case's direction
   * (`comparison.scorers`: "better" for a fix, "worse" for a regression, by the Fisher exact test).
   * Such a case did flip, but one flip is what noise makes: `formatComparison` and the HTML report
   * list it as "changed within noise", not as a fix or a regression.
   */
  withinNoise: boolean;
}

/** What `compareReports` finds. */
export interface ReportComparison {
  /** Cases that passed in the baseline and fail now (each with `withinNoise`: whether the change is beyond noise). */
  regressions: CaseChange[];
  /** Cases that failed in the baseline and pass now (each with `withinNoise`: whether the change is beyond noise). */
  fixes: CaseChange[];
  /** Cases only in the current report. */
  added: string[];
  /** Cases only in the baseline. */
  removed: string[];
  /** Cases in both whose standing did not change between pass and fail. */
  unchanged: string[];
  /**
   * Per scorer in both reports: both pass rates (judged rows) with 95% Wilson intervals, and
   * whether the difference is significant by a two-sided Fisher exact test at 5%.
   */
  scorers: ScorerComparison[];
}

/** One scorer's pass rate in the baseline and now, and whether it changed beyond noise. */
export interface ScorerComparison extends RateDifference {
  scorer: string;
}

function standing(rows: readonly EvalRow[]): CaseStanding {
  const trials = [...new Set(rows.map((row) => row.trial))].map((trial) =>
    trialOutcome(rows.filter((row) => row.trial === trial)),
  );
  if (trials.includes("fail")) return "fail";
  return trials.includes("pass") ? "pass" : "unknown";
}

function standings(
  report: EvalReportData,
  caseName: string,
): { overall: CaseStanding; byScorer: Map<string, CaseStanding> } {
  const rows = report.rows.filter((row) => row.case === caseName);
  const scorers = [...new Set(rows.map((row) => row.scorer))];
  return {
    overall: standing(rows),
    byScorer: new Map(scorers.map((scorer) => [scorer, standing(rows.filter((row) => row.scorer === scorer))])),
  };
}

/** Regressions (pass → fail) and fixes (fail → pass) by case name, and the cases added and removed. */
export function compareReports(baseline: EvalReportData, current: EvalReportData): ReportComparison {
  const before = new Set(baseline.cases.map((c) => c.case));
  const after = current.cases.map((c) => c.case);
  const comparison: ReportComparison = {
    regressions: [],
    fixes: [],
    added: after.filter((name) => !before.has(name)),
    removed: [...before].filter((name) => !after.includes(name)),
    unchanged: [],
    scorers: compareScorers(baseline, current),
  };
  const verdicts = new Map(comparison.scorers.map((s) => [s.scorer, s.verdict]));
  for (const name of after.filter((n) => before.has(n))) {
    const old = standings(baseline, name);
    const now = standings(current, name);
    const change = (from: CaseStanding, to: CaseStanding): CaseChange => {
      const scorers = [...now.byScorer]
        .filter(([scorer, s]) => s === to && old.byScorer.get(scorer) === from)
        .map(([scorer]) => scorer);
      const direction = to === "pass" ? "better" : "worse";
      return {
        case: name,
        baseline: from,
        current: to,
        scorers,
        withinNoise: !scorers.some((scorer) => verdicts.get(scorer) === direction),
      };
    };
    if (old.overall === "pass" && now.overall === "fail") comparison.regressions.push(change("pass", "fail"));
    else if (old.overall === "fail" && now.overall === "pass") comparison.fixes.push(change("fail", "pass"));
    else comparison.unchanged.push(name);
  }
  return comparison;
}

function compareScorers(baseline: EvalReportData, current: EvalReportData): ScorerComparison[] {
  return current.scorers.flatMap((now) => {
    const old = baseline.scorers.find((s) => s.scorer === now.scorer);
    if (!old) return [];
    return [
      {
        scorer: now.scorer,
        ...compareRates(
          { passed: old.passed, total: old.passed + old.failed },
          { passed: now.passed, total: now.passed + now.failed },
        ),
      },
    ];
  });
}

/** One scorer's line: "requiredToolCalled: 3/16 (19%, 95% CI 7%–43%) → 4/16 (...): within noise (Fisher exact p = 1.000)". */
export function formatScorerComparison(c: ScorerComparison): string {
  const p =
    c.pValue === null
      ? ""
      : ` (two-sided Fisher exact p = ${c.pValue < 0.001 ? c.pValue.toExponential(1) : c.pValue.toFixed(3)}, significant below ${SIGNIFICANCE_LEVEL})`;
  return `${c.scorer}: ${formatRate(c.baseline)} → ${formatRate(c.current)}: ${c.verdict}${p}`;
}

/** The case changes beyond noise (regressions, fixes) and within it, for the terminal and the HTML report. */
export function caseChanges(comparison: ReportComparison): {
  regressions: CaseChange[];
  fixes: CaseChange[];
  withinNoise: CaseChange[];
} {
  return {
    regressions: comparison.regressions.filter((c) => !c.withinNoise),
    fixes: comparison.fixes.filter((c) => !c.withinNoise),
    withinNoise: [...comparison.regressions, ...comparison.fixes].filter((c) => c.withinNoise),
  };
}

/** The headline's counts: "1 regression(s), 0 fix(es), 2 changed within noise, 0 added, 0 removed". */
export function comparisonCounts(comparison: ReportComparison): string {
  const { regressions, fixes, withinNoise } = caseChanges(comparison);
  return (
    `${regressions.length} regression(s), ${fixes.length} fix(es), ${withinNoise.length} changed within ` +
    `noise, ${comparison.added.length} added, ${comparison.removed.length} removed`
  );
}

/**
 * The comparison as lines for a terminal. Only changes beyond noise are called regressions and
 * fixes; a case that flipped on scorers whose pass rate did not change significantly is listed as
 * "changed within noise".
 */
export function formatComparison(comparison: ReportComparison): string {
  const scorers = (change: CaseChange) => (change.scorers.length ? ` (${change.scorers.join(", ")})` : "");
  const line = (mark: string, change: CaseChange) => `  ${mark} ${change.case}${scorers(change)}`;
  const { regressions, fixes, withinNoise } = caseChanges(comparison);
  return [
    `Compared with the baseline: ${comparisonCounts(comparison)}`,
    ...regressions.map((c) => line("regressed", c)),
    ...fixes.map((c) => line("fixed", c)),
    ...withinNoise.map((c) => `  changed within noise ${c.case}: ${c.baseline} → ${c.current}${scorers(c)}`),
    ...comparison.added.map((name) => `  added ${name}`),
    ...comparison.removed.map((name) => `  removed ${name}`),
    ...(comparison.scorers.length
      ? ["Pass rates (judged rows):", ...comparison.scorers.map((c) => `  ${formatScorerComparison(c)}`)]
      : []),
  ].join("\n");
}
