import { matchesIntent } from "../../agent/contract-options.js";
import type { Intent } from "../../agent/options.js";
import { observeToolCalls } from "../eval-record.js";
import { EvalOptionsError } from "../../errors.js";
import { defineScorer, notApplicable, type ScorerFunction } from "../scorer.js";

/** The specification's failure message of `requiredToolCalled`. */
export const REQUIRED_TOOL_NOT_CALLED = "required tool not called";

/** Options of `ai.eval.requiredToolCalled()`. */
export interface RequiredToolCalledOptions {
  /** Tools that count as acting. Only a call with status `ok` counts: a failed or refused call does not. */
  tools: string[];
  /** Which inputs are action requests (case-insensitive substring, RegExp or predicate). Default: every case is one. */
  intents?: Intent[];
  /** `"any"` (default): one of `tools` succeeded. `"all"`: each of them did. */
  require?: "any" | "all";
  /** The scorer's name in reports. Default `"requiredToolCalled"`; set it when an eval has two. */
  name?: string;
}

function describeIntent(intent: Intent): string {
  if (typeof intent === "string") return intent;
  if (intent instanceof RegExp) return intent.toString();
  return intent.name ? `${intent.name}()` : "(function)";
}

/**
 * Fails with exactly "required tool not called" when the case is an action request (its input
 * matches `intents`; every case when `intents` is omitted) and no required tool call succeeded.
 * A case that is not an action request is not applicable: it is left out of pass rates.
 */
export function requiredToolCalled(options: RequiredToolCalledOptions): ScorerFunction {
  const { tools, intents, require = "any" } = options;
  if (!Array.isArray(tools) || tools.length === 0)
    throw new EvalOptionsError("requiredToolCalled.tools", "must name at least one tool");
  return defineScorer(options.name ?? "requiredToolCalled", (record) => {
    const intent =
      intents === undefined ? undefined : intents.find((candidate) => matchesIntent(candidate, record.input));
    if (intents !== undefined && intent === undefined) return notApplicable("not an action request");
    const succeeded = new Set(record.toolCalls.filter((call) => call.status === "ok").map((call) => call.name));
    const missingTools = tools.filter((tool) => !succeeded.has(tool));
    const pass = require === "all" ? missingTools.length === 0 : missingTools.length < tools.length;
    const evidence = {
      ...(intent !== undefined ? { intent: describeIntent(intent) } : {}),
      toolCalls: observeToolCalls(record.toolCalls),
    };
    return pass
      ? { pass, evidence }
      : { pass, reason: REQUIRED_TOOL_NOT_CALLED, evidence: { ...evidence, missingTools } };
  });
}
