import { textOf } from "../core/types.js";
import type { RunInput } from "../client/normalize-input.js";
import { normalizeInput } from "../client/normalize-input.js";
import type { EvalCaseMemory } from "./case-memory.js";

/**
 * One case of an eval: a name (unique in the eval; reports and `compareReports` key on it), the
 * run's input, its context, and any metadata of yours, which every scorer sees on `record.case`.
 */
export interface EvalCase {
  /** Unique within the eval; names the case in reports, JUnit and comparisons. */
  name: string;
  /** The run's input: the user's text, or a conversation ending in the user's turn. */
  input: RunInput;
  /**
   * The run's context, as `agent.run(input, { context })` takes it: checked against the agent's
   * `contextSchema` (a case without it fails that check), read by its instructions function and
   * tools. Default: none. Scorers see it on `record.case` too.
   */
  context?: unknown;
  /**
   * What the user's memory holds before the run (an agent with `memory`): its working memory and
   * past messages, loaded into a memory scope of the run's own (a fresh user id) and deleted after
   * the case is scored. Scorers see what the run recalled on `record.memory`. Default: none (the
   * run has no user, so no memory).
   */
  memory?: EvalCaseMemory;
  /** Your metadata (expected tools, tags, ...), passed through to scorers. */
  [metadata: string]: unknown;
}

/** The text of the case's last user message: what intents and scorers read as `input`. */
export function caseInputText(input: RunInput): string {
  const messages = normalizeInput(input);
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === "user") return textOf(message.content);
  }
  return "";
}

/** The case's metadata: every field but `name` and `input` (a recorded case's recording reduced to the run it names). */
export function caseMetadata(evalCase: EvalCase): Record<string, unknown> {
  const { name: _name, input: _input, ...metadata } = evalCase;
  const recorded = metadata.recorded as { workflowId?: unknown; runId?: unknown } | undefined;
  if (recorded && typeof recorded === "object")
    metadata.recorded = { workflowId: recorded.workflowId, runId: recorded.runId };
  return metadata;
}
