/**
 * `--baseline recorded`: the scorers applied to each recorded run itself (no model call, no
 * worker), as an `EvalReport` to compare a playback with.
 */
import type { ToolCallRecord } from "../core/types.js";
import type { RecordedCase } from "../datasets/recorded-case.js";
import { buildReport } from "./build-report.js";
import { caseInputText, caseMetadata } from "../datasets/eval-case.js";
import { observeToolCalls, type EvalRecord } from "./eval-record.js";
import { EvalReport } from "./report.js";
import type { EvalRow, EvalRun } from "./report-schema.js";
import { runScorer, scorerName, type Scorer } from "./scorer.js";
import { defined } from "../core/defined.js";

/** What each scorer makes of the recordings: one trial per case, the recorded run as the record. */
export async function recordedBaseline<C extends RecordedCase>(
  cases: readonly C[],
  scorers: readonly Scorer<C>[],
  options: { agent?: string } = {},
): Promise<EvalReport> {
  const startedAt = new Date();
  const names = scorers.map((s) => scorerName(s as Scorer<never>));
  const runs: EvalRun[] = [];
  const rows: EvalRow[] = [];
  for (const evalCase of cases) {
    const { recorded } = evalCase;
    const toolCalls: ToolCallRecord[] = recorded.toolCalls.map((call, i) => ({
      id: `recorded-${i + 1}`,
      trip: call.trip ?? 1,
      ...call,
    }));
    const record: EvalRecord<C> = {
      case: evalCase,
      input: caseInputText(evalCase.input),
      trial: 1,
      reply: recorded.reply,
      toolCalls,
      messages: recorded.messages ?? [],
      trace: recorded.trace ?? [],
      stopReason: recorded.stopReason,
      trips: recorded.trips,
      ...defined({ usage: recorded.usage }),
      workflowId: recorded.workflowId,
      runId: recorded.runId,
    };
    const base = { case: evalCase.name, trial: 1 };
    const observed = observeToolCalls(toolCalls);
    runs.push({
      ...base,
      status: "completed",
      workflowId: recorded.workflowId,
      runId: recorded.runId,
      durationMs: 0,
      reply: recorded.reply,
      stopReason: recorded.stopReason,
      trips: recorded.trips,
      toolCalls: observed,
      ...defined({ usage: recorded.usage }),
    });
    for (const [i, scorer] of scorers.entries()) {
      const outcome = await runScorer(scorer, record);
      rows.push({
        ...base,
        scorer: names[i]!,
        ...outcome,
        ...(outcome.status === "fail" ? { evidence: { toolCalls: observed, ...outcome.evidence } } : {}),
      });
    }
    if (rows.some((row) => row.case === evalCase.name && row.status === "fail") && recorded.messages)
      runs.at(-1)!.messages = recorded.messages;
  }
  return new EvalReport(
    buildReport({
      agent: options.agent ?? cases[0]?.recorded.agent ?? "recorded",
      startedAt,
      finishedAt: new Date(),
      trials: 1,
      cases: cases.map((c) => ({
        name: c.name,
        input: caseInputText(c.input),
        metadata: JSON.parse(JSON.stringify(caseMetadata(c))) as Record<string, unknown>,
      })),
      scorers: names,
      runs,
      rows,
    }),
  );
}
