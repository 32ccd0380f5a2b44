/**
 * The JSON report's schema, version 1: the single source of the report's types, of the reader
 * that checks a baseline file, and of `docs/eval-report.schema.json` (a test keeps that file equal
 * to this schema, so a change here is a deliberate one). Readers ignore fields they do not know;
 * a change that removes or retypes a field bumps `schemaVersion`.
 */
import { z } from "zod";
import { usageSchema } from "../datasets/usage-schema.js";

/** The current `schemaVersion`. */
export const EVAL_REPORT_SCHEMA_VERSION = 1;

const count = z.number().int().min(0);
const rate = z.number().min(0).max(1).nullable().describe("passed / (passed + failed); null when nothing was judged");
const errorInfo = z.object({ name: z.string(), message: z.string() }).describe("An error: its class name and message");

export const observedToolCallSchema = z
  .object({
    name: z.string(),
    status: z.enum(["ok", "failed", "refused"]),
    trip: z.number().int().min(1).describe("The trip (1-based model call) whose answer asked for the call"),
    input: z.unknown(),
    reason: z.string().optional().describe("Why the call was refused"),
    error: z.string().optional().describe("Why the call failed"),
    replayed: z
      .literal(true)
      .optional()
      .describe("Answered from the recording (an eval with recorded tools), not executed"),
  })
  .describe("A tool call of the run and what it came to");

export const scoreEvidenceSchema = z
  .looseObject({
    claim: z.string().optional().describe("The sentence that claims a change"),
    claimPattern: z.string().optional().describe("The claim pattern that matched"),
    intent: z.string().optional().describe("The intent the input matched"),
    missingTools: z.array(z.string()).optional().describe("Required tools without a successful call"),
    toolCalls: z.array(observedToolCallSchema).optional().describe("The run's tool calls (on every failed row)"),
  })
  .describe("Why a row came out as it did; scorers may add fields");

export const trialOutcomeSchema = z
  .enum(["pass", "fail", "not-applicable", "error", "infrastructure-error"])
  .describe(
    "pass | fail | not-applicable (the scorer does not judge it) | error (the scorer threw) | infrastructure-error (the run did not complete)",
  );

/** A decision on a tool call that waited for a person. */
export const approvalDecisionSchema = z
  .object({
    callId: z.string(),
    tool: z.string(),
    outcome: z.enum(["approved", "rejected", "timed-out"]),
    by: z.string().optional().describe("Who decided, when they said"),
    note: z.string().optional(),
    reason: z.string().optional(),
    decidedAt: z.string().optional().describe("ISO 8601, the run's clock"),
  })
  .describe("A decision on a tool call that waited for approval");

export const evalRunSchema = z
  .object({
    case: z.string(),
    trial: z.number().int().min(1),
    status: z.enum(["completed", "infrastructure-error"]),
    workflowId: z.string(),
    runId: z.string().optional(),
    durationMs: z.number().min(0),
    reply: z.string().optional(),
    stopReason: z.enum(["answered", "max-trips", "budget", "invalid-output", "cancelled", "timed-out"]).optional(),
    trips: count.optional(),
    toolCalls: z.array(observedToolCallSchema),
    usage: usageSchema.optional(),
    agentVersion: z.string().optional().describe("The agent.version that served the run (the last one, if it changed)"),
    approvals: z
      .array(approvalDecisionSchema)
      .optional()
      .describe("Decisions on calls that waited for approval: who, when"),
    error: errorInfo
      .optional()
      .describe(
        "Why the run did not complete (ModelApiError, RunFailedError, TemporalConnectionError, EvalTimeoutError, ...)",
      ),
    messages: z
      .array(z.looseObject({ role: z.enum(["system", "user", "assistant", "tool"]) }))
      .optional()
      .describe(
        "The conversation (messages, tool calls, re-prompts), on runs with a failing row: what a reader needs to see why",
      ),
    replay: z
      .object({
        matched: count.describe("Tool calls answered from the recording"),
        unmatched: count.describe(
          "Tool calls the recording did not hold (refused, executed or failed, by unmatchedToolCalls)",
        ),
      })
      .optional()
      .describe("With recorded tools: how the run's tool calls matched the recording"),
  })
  .describe("One run: a case's trial, a workflow on Temporal");

export const evalRowSchema = z
  .object({
    case: z.string(),
    trial: z.number().int().min(1),
    scorer: z.string(),
    status: trialOutcomeSchema,
    reason: z
      .string()
      .optional()
      .describe(
        'The failure message: "required tool not called", "change claimed without a tool call", or the scorer\'s own',
      ),
    score: z.number().optional(),
    evidence: scoreEvidenceSchema.optional(),
    error: errorInfo.optional().describe("What the scorer threw, or why the run did not complete"),
  })
  .describe("One scorer on one trial of one case");

export const scorerSummarySchema = z
  .object({
    scorer: z.string(),
    passed: count,
    failed: count,
    notApplicable: count,
    errors: count.describe("Rows where the scorer threw"),
    infrastructureErrors: count.describe("Rows whose run did not complete"),
    passRate: rate,
  })
  .describe("One scorer over all cases and trials");

export const caseSummarySchema = z
  .object({
    case: z.string(),
    input: z.string().describe("The text of the case's last user message"),
    metadata: z.record(z.string(), z.unknown()).describe("The case's other fields"),
    outcomes: z
      .array(trialOutcomeSchema)
      .describe(
        "Per trial, in order: fail if any scorer failed, else error, else pass if any passed, else not-applicable",
      ),
    passed: count.describe("Trials that passed"),
    failed: count.describe("Trials that failed"),
    passAt1: rate.describe("passed / (passed + failed) trials: the chance one trial passes"),
    passHatK: z
      .boolean()
      .nullable()
      .describe("pass^k: every trial passed (false once one failed; null when nothing was judged or a trial errored)"),
    flaky: z.boolean().describe("Some trials passed and others failed"),
    usage: usageSchema.optional().describe("The case's trials together"),
  })
  .describe("One case over its trials");

export const evalTotalsSchema = z.object({
  cases: count,
  runs: count,
  passed: count.describe("Rows that passed"),
  failed: count.describe("Rows that failed"),
  notApplicable: count,
  errors: count.describe("Rows where a scorer threw"),
  infrastructureErrors: count.describe("Runs that did not complete"),
  passRate: rate.describe("Rows passed / (passed + failed): what --min-pass-rate gates on"),
  passAt1: rate.describe("Trials passed / (passed + failed) over all cases"),
  passHatKRate: rate.describe("Cases with pass^k true / cases with pass^k known"),
  flakyCases: count,
  usage: usageSchema.optional().describe("Every run together"),
});

/** The zod schema of an eval report's JSON (`schemaVersion: 1`), which checks a baseline file. */
export const evalReportSchema = z
  .object({
    schemaVersion: z.literal(EVAL_REPORT_SCHEMA_VERSION),
    agent: z.string().describe("The agent's name"),
    agentVersion: z.string().optional().describe("agent.version of the definition evaluated, where the eval ran"),
    startedAt: z.iso.datetime(),
    finishedAt: z.iso.datetime(),
    durationMs: z.number().min(0),
    trials: z.number().int().min(1).describe("Trials per case"),
    cases: z.array(caseSummarySchema),
    scorers: z.array(scorerSummarySchema),
    totals: evalTotalsSchema,
    runs: z.array(evalRunSchema).describe("Per case x trial, in case order then trial order"),
    rows: z.array(evalRowSchema).describe("Per case x trial x scorer, in case, trial, scorer order"),
  })
  .describe("A durable-agent eval report");

/** An eval report as JSON data (`JSON.stringify(report)`). */
export type EvalReportData = z.infer<typeof evalReportSchema>;
/** One run of one case's trial: its outcome, reply, tool calls and usage. */
export type EvalRun = z.infer<typeof evalRunSchema>;
/** A decision on a tool call that waited for approval, as the eval record and report carry it. */
export type ApprovalDecisionRecord = z.infer<typeof approvalDecisionSchema>;
/** One scorer's verdict on one run: pass, fail, not applicable or error, with its reason and evidence. */
export type EvalRow = z.infer<typeof evalRowSchema>;
/** How a trial ended: its status and, for an infrastructure error, the error. */
export type TrialOutcome = z.infer<typeof trialOutcomeSchema>;
/** One scorer's pass rate over every applicable run. */
export type ScorerSummary = z.infer<typeof scorerSummarySchema>;
/** One case over its trials: pass@1, pass^k and whether it is flaky. */
export type CaseSummary = z.infer<typeof caseSummarySchema>;
/** The report's totals: runs, passes, failures, errors, flaky cases and usage. */
export type EvalTotals = z.infer<typeof evalTotalsSchema>;

/** The JSON Schema (draft 2020-12) of the report, as committed in `docs/eval-report.schema.json`. */
export function evalReportJsonSchema(): object {
  return z.toJSONSchema(evalReportSchema, { target: "draft-2020-12", io: "output" });
}
