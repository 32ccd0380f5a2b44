/** Evaluation: `agent.eval()`, the built-in scorers, reports (table, JSON, JUnit) and their comparison. */
export type { EvalOptions, EvalProgress } from "./run-eval.js";
export type { EvalCase } from "../datasets/eval-case.js";
export {
  EVAL_APPROVER,
  type EvalApprovalCall,
  type EvalApprovalDecision,
  type EvalApprovalPolicy,
} from "./eval-approvals.js";
export type { EvalRecord, EvalRecordMemory, ObservedToolCall } from "./eval-record.js";
export {
  defineScorer,
  notApplicable,
  type Scorer,
  type ScorerFunction,
  type ScorerResult,
  type ScoreVerdict,
  type NotApplicable,
  type ScoreEvidence,
} from "./scorer.js";
export {
  requiredToolCalled,
  REQUIRED_TOOL_NOT_CALLED,
  type RequiredToolCalledOptions,
} from "./scorers/required-tool-called.js";
export {
  changeClaimedWithoutToolCall,
  CHANGE_CLAIMED_WITHOUT_TOOL_CALL,
  type ChangeClaimedWithoutToolCallOptions,
} from "./scorers/change-claimed-without-tool-call.js";
export { defaultClaimPatterns, findClaim, type Claim, type ClaimMatch, type ClaimPattern } from "./claim-patterns.js";
export { EvalReport, parseReport } from "./report.js";
export { EVAL_REPORT_SCHEMA_VERSION, evalReportJsonSchema, evalReportSchema } from "./report-schema.js";
export type {
  EvalReportData,
  EvalRun,
  EvalRow,
  TrialOutcome,
  ScorerSummary,
  CaseSummary,
  EvalTotals,
} from "./report-schema.js";
export { checkReport, assertPassed, type PassCriteria, type GateResult } from "./assert-passed.js";
export {
  compareReports,
  formatComparison,
  formatScorerComparison,
  type ReportComparison,
  type ScorerComparison,
  type CaseChange,
  type CaseStanding,
} from "./compare-reports.js";
export {
  compareRates,
  fisherExactTwoSided,
  formatRate,
  passRateInterval,
  SIGNIFICANCE_LEVEL,
  wilsonInterval,
  type PassRateInterval,
  type RateDifference,
} from "./confidence.js";
export { toJUnitXml, escapeXml } from "./junit.js";
export { recordedBaseline } from "./recorded-baseline.js";
export { toHtmlReport, type HtmlReportOptions } from "./report-html.js";
export { formatTable } from "./format-table.js";
export { EvalTimeoutError, EvalAssertionError, EvalReportFormatError, ScorerResultError } from "./errors.js";
