/** Pure: the report's summaries (per case, per scorer, totals) from its runs and rows. */
import type {
  CaseSummary,
  EvalReportData,
  EvalRow,
  EvalRun,
  EvalTotals,
  ScorerSummary,
  TrialOutcome,
} from "./report-schema.js";
import { EVAL_REPORT_SCHEMA_VERSION } from "./report-schema.js";
import { addRunUsage, type RunUsage } from "../core/usage.js";
import { defined } from "../core/defined.js";

/** The runs' usage together, or undefined when none reported any. */
function usageOf(runs: readonly EvalRun[]): RunUsage | undefined {
  return runs.reduce<RunUsage | undefined>((sum, run) => addRunUsage(sum, run.usage), undefined);
}

/** What `buildReport` needs besides runs and rows. */
export interface ReportInputs {
  agent: string;
  /** `agent.version` where the eval ran. */
  agentVersion?: string;
  startedAt: Date;
  finishedAt: Date;
  trials: number;
  /** In case order. */
  cases: Array<{ name: string; input: string; metadata: Record<string, unknown> }>;
  /** In scorer order. */
  scorers: string[];
  runs: EvalRun[];
  rows: EvalRow[];
}

const rate = (passed: number, failed: number): number | null =>
  passed + failed === 0 ? null : passed / (passed + failed);

/** A trial's outcome from its rows: fail if any failed, else error, else pass if any passed, else not-applicable. */
export function trialOutcome(rows: readonly EvalRow[]): TrialOutcome {
  const statuses = new Set(rows.map((row) => row.status));
  for (const status of ["infrastructure-error", "fail", "error", "pass"] as const)
    if (statuses.has(status)) return status;
  return "not-applicable";
}

function countBy(rows: readonly EvalRow[], status: TrialOutcome): number {
  return rows.filter((row) => row.status === status).length;
}

function summarizeScorer(scorer: string, rows: readonly EvalRow[]): ScorerSummary {
  const own = rows.filter((row) => row.scorer === scorer);
  const passed = countBy(own, "pass");
  const failed = countBy(own, "fail");
  return {
    scorer,
    passed,
    failed,
    notApplicable: countBy(own, "not-applicable"),
    errors: countBy(own, "error"),
    infrastructureErrors: countBy(own, "infrastructure-error"),
    passRate: rate(passed, failed),
  };
}

function summarizeCase(
  evalCase: ReportInputs["cases"][number],
  trials: number,
  rows: readonly EvalRow[],
  runs: readonly EvalRun[],
): CaseSummary {
  const usage = usageOf(runs.filter((run) => run.case === evalCase.name));
  const outcomes = Array.from({ length: trials }, (_, i) =>
    trialOutcome(rows.filter((row) => row.case === evalCase.name && row.trial === i + 1)),
  );
  const passed = outcomes.filter((o) => o === "pass").length;
  const failed = outcomes.filter((o) => o === "fail").length;
  const unknown = outcomes.some((o) => o === "error" || o === "infrastructure-error");
  return {
    case: evalCase.name,
    input: evalCase.input,
    metadata: evalCase.metadata,
    outcomes,
    passed,
    failed,
    passAt1: rate(passed, failed),
    passHatK: failed > 0 ? false : passed === 0 || unknown ? null : true,
    flaky: passed > 0 && failed > 0,
    ...defined({ usage }),
  };
}

function totalsOf(cases: readonly CaseSummary[], runs: readonly EvalRun[], rows: readonly EvalRow[]): EvalTotals {
  const passed = countBy(rows, "pass");
  const failed = countBy(rows, "fail");
  const known = cases.filter((c) => c.passHatK !== null);
  const trialsPassed = cases.reduce((sum, c) => sum + c.passed, 0);
  const trialsFailed = cases.reduce((sum, c) => sum + c.failed, 0);
  const usage = usageOf(runs);
  return {
    cases: cases.length,
    runs: runs.length,
    passed,
    failed,
    notApplicable: countBy(rows, "not-applicable"),
    errors: countBy(rows, "error"),
    infrastructureErrors: runs.filter((run) => run.status === "infrastructure-error").length,
    passRate: rate(passed, failed),
    passAt1: rate(trialsPassed, trialsFailed),
    passHatKRate: known.length === 0 ? null : known.filter((c) => c.passHatK).length / known.length,
    flakyCases: cases.filter((c) => c.flaky).length,
    ...defined({ usage }),
  };
}

/** The report's data, summaries included. */
export function buildReport(inputs: ReportInputs): EvalReportData {
  const cases = inputs.cases.map((c) => summarizeCase(c, inputs.trials, inputs.rows, inputs.runs));
  return {
    schemaVersion: EVAL_REPORT_SCHEMA_VERSION,
    agent: inputs.agent,
    ...defined({ agentVersion: inputs.agentVersion }),
    startedAt: inputs.startedAt.toISOString(),
    finishedAt: inputs.finishedAt.toISOString(),
    durationMs: inputs.finishedAt.getTime() - inputs.startedAt.getTime(),
    trials: inputs.trials,
    cases,
    scorers: inputs.scorers.map((scorer) => summarizeScorer(scorer, inputs.rows)),
    totals: totalsOf(cases, inputs.runs, inputs.rows),
    runs: inputs.runs,
    rows: inputs.rows,
  };
}
