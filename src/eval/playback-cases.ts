/** An eval with recorded tools: what each case's run gets (its input, context and recording) and how its calls matched. */
import type { RunInput } from "../client/normalize-input.js";
import { normalizeInput } from "../client/normalize-input.js";
import type { PlaybackArgs, UnmatchedToolCalls } from "../core/playback.js";
import type { RunResult } from "../core/types.js";
import { isRecordedCase } from "../datasets/recorded-case.js";
import type { EvalCase } from "../datasets/eval-case.js";
import { EvalOptionsError } from "../errors.js";
import { recordedMemoryMessage } from "./case-memory.js";

const UNMATCHED: readonly UnmatchedToolCalls[] = ["refuse", "execute", "fail"];

/** With `tools: "recorded"`, every case must carry a recording. */
export function validatePlayback(options: {
  cases: readonly EvalCase[];
  tools?: string;
  unmatchedToolCalls?: string;
}): void {
  if (options.tools !== undefined && options.tools !== "live" && options.tools !== "recorded")
    throw new EvalOptionsError("tools", `must be "live" or "recorded" (got ${JSON.stringify(options.tools)})`);
  if (
    options.unmatchedToolCalls !== undefined &&
    !UNMATCHED.includes(options.unmatchedToolCalls as UnmatchedToolCalls)
  ) {
    throw new EvalOptionsError(
      "unmatchedToolCalls",
      `must be "refuse", "execute" or "fail" (got ${JSON.stringify(options.unmatchedToolCalls)})`,
    );
  }
  if (options.tools !== "recorded") return;
  const index = options.cases.findIndex((c) => !isRecordedCase(c));
  if (index >= 0)
    throw new EvalOptionsError(
      `cases[${index}].recorded`,
      `is missing: tools: "recorded" plays back recorded runs; read cases with ai.eval.casesFromRuns() or readCases()`,
    );
}

/** The run of a case: its input (after a session's earlier messages), its context, and with recorded tools, its recording. */
export function runInputOf(
  evalCase: EvalCase,
  options: { tools?: string; unmatchedToolCalls?: UnmatchedToolCalls },
): { input: RunInput; context?: unknown; replay?: PlaybackArgs } {
  const context = evalCase.context !== undefined ? { context: evalCase.context } : {};
  if (!isRecordedCase(evalCase)) return { input: evalCase.input, ...context };
  const { recorded } = evalCase;
  const memory = options.tools === "recorded" ? recordedMemoryMessage(evalCase.memory) : undefined; // a playback recalls nothing
  const input =
    evalCase.messages?.length || memory
      ? [...(evalCase.messages ?? []), ...(memory ? [memory] : []), ...normalizeInput(evalCase.input)]
      : evalCase.input;
  return {
    input,
    ...context,
    ...(options.tools === "recorded"
      ? {
          replay: {
            toolCalls: recorded.toolCalls,
            backstops: recorded.backstops ?? [],
            unmatchedToolCalls: options.unmatchedToolCalls ?? "refuse",
          },
        }
      : {}),
  };
}

/** Calls answered from the recording, and calls it did not hold. */
export function playbackCounts(result: RunResult): { matched: number; unmatched: number } {
  const matched = result.toolCalls.filter((call) => call.replayed).length;
  return { matched, unmatched: result.toolCalls.length - matched };
}
