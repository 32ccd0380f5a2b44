/** The pass/fail gate shared by `report.assertPassed()` and the CLI's exit code, and its readable summary. */
import { EvalAssertionError } from "./errors.js";
import { describeToolCalls, percent } from "./format-table.js";
import type { EvalReportData } from "./report-schema.js";

/** What counts as passing. */
export interface PassCriteria {
  /** The lowest acceptable `totals.passRate` (rows passed / judged), 0..1. Default 1: every judged row passes. */
  minPassRate?: number;
}

/** The gate's verdict. */
export interface GateResult {
  passed: boolean;
  /** 0 passed; 1 below the gate, a scorer error or nothing judged; 2 an infrastructure error (takes precedence). */
  exitCode: 0 | 1 | 2;
  /** Why it did not pass, one line each. */
  problems: string[];
}

/** Checks the report against the criteria. */
export function checkReport(report: EvalReportData, criteria: PassCriteria = {}): GateResult {
  const min = criteria.minPassRate ?? 1;
  const t = report.totals;
  const problems: string[] = [];
  if (t.infrastructureErrors > 0)
    problems.push(`${t.infrastructureErrors} run(s) did not complete (infrastructure errors)`);
  if (t.passRate === null) problems.push("no scorer judged any case");
  else if (t.passRate < min)
    problems.push(`pass rate ${percent(t.passRate)} (${t.passed} of ${t.passed + t.failed}) is below ${percent(min)}`);
  if (t.errors > 0) problems.push(`${t.errors} scorer error(s)`);
  const exitCode = t.infrastructureErrors > 0 ? 2 : problems.length > 0 ? 1 : 0;
  return { passed: exitCode === 0, exitCode, problems };
}

function quote(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}...` : text);
}

/** A readable account of every failure, scorer error and infrastructure error of the report. */
export function describeProblems(report: EvalReportData): string {
  const sections: string[] = [];
  const failures = report.rows.filter((row) => row.status === "fail");
  if (failures.length > 0) {
    const lines = failures.flatMap((row) => {
      const run = report.runs.find((r) => r.case === row.case && r.trial === row.trial);
      return [
        `  x ${row.case} (trial ${row.trial}) ${row.scorer}: ${row.reason ?? "failed"}`,
        ...(row.evidence?.claim !== undefined
          ? [
              `      claim: ${quote(row.evidence.claim)}${row.evidence.claimPattern ? ` (${row.evidence.claimPattern})` : ""}`,
            ]
          : []),
        ...(row.evidence?.missingTools?.length ? [`      missing: ${row.evidence.missingTools.join(", ")}`] : []),
        `      tool calls: ${describeToolCalls(row.evidence?.toolCalls ?? run?.toolCalls)}`,
        ...(run?.reply !== undefined ? [`      reply: ${quote(run.reply)}`] : []),
      ];
    });
    sections.push([`Failures (${failures.length}):`, ...lines].join("\n"));
  }
  const errors = report.rows.filter((row) => row.status === "error");
  if (errors.length > 0) {
    sections.push(
      [
        `Scorer errors (${errors.length}):`,
        ...errors.map(
          (row) => `  ! ${row.case} (trial ${row.trial}) ${row.scorer}: ${row.error?.name}: ${row.error?.message}`,
        ),
      ].join("\n"),
    );
  }
  const infrastructure = report.runs.filter((run) => run.status === "infrastructure-error");
  if (infrastructure.length > 0) {
    sections.push(
      [
        `Infrastructure errors (${infrastructure.length}):`,
        ...infrastructure.map(
          (run) => `  ! ${run.case} (trial ${run.trial}, ${run.workflowId}): ${run.error?.name}: ${run.error?.message}`,
        ),
      ].join("\n"),
    );
  }
  return sections.join("\n");
}

/** Throws an `EvalAssertionError` with a readable summary unless the report passes the criteria. */
export function assertPassed(report: EvalReportData, criteria: PassCriteria = {}): void {
  const gate = checkReport(report, criteria);
  if (gate.passed) return;
  const details = describeProblems(report);
  throw new EvalAssertionError(
    `Eval of agent "${report.agent}" did not pass: ${gate.problems.join("; ")}.${details ? `\n${details}` : ""}`,
  );
}
