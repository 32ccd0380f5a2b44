/** Errors of `agent.eval()` and its reports; each is a `DurableAgentError` with a stable `name`. */
import { DurableAgentError } from "../errors.js";

function guard<T extends DurableAgentError>(name: string) {
  return (error: unknown): error is T => DurableAgentError.isInstance(error) && error.name === name;
}

/** An option of `agent.eval()` is invalid; `field` names it (`cases[2].name`, `scorers[0]`, `trials`). */
export class EvalOptionsError extends DurableAgentError {
  static override isInstance = guard<EvalOptionsError>("EvalOptionsError");
  constructor(readonly field: string, problem: string) {
    super(`Invalid eval option \`${field}\`: ${problem}`);
  }
}

/** A scorer returned something that is not `{ pass }` or `{ applicable: false }`. Reported as the scorer's error. */
export class ScorerResultError extends DurableAgentError {
  static override isInstance = guard<ScorerResultError>("ScorerResultError");
  constructor(readonly scorer: string, got: string) {
    super(`Scorer "${scorer}" returned ${got}; return { pass: boolean, reason?, score? } or { applicable: false }.`);
  }
}

/** A run of an eval did not finish within `timeout`; it was terminated. Counted as an infrastructure error. */
export class EvalTimeoutError extends DurableAgentError {
  static override isInstance = guard<EvalTimeoutError>("EvalTimeoutError");
  constructor(readonly workflowId: string, readonly timeoutMs: number) {
    super(`Run ${workflowId} did not finish within ${timeoutMs} ms and was terminated. Is a worker polling the task queue?`);
  }
}

/** `report.assertPassed()` found failures, scorer errors or infrastructure errors; the message lists them. */
export class EvalAssertionError extends DurableAgentError {
  static override isInstance = guard<EvalAssertionError>("EvalAssertionError");
}

/** A report file is not a report of this schema version. */
export class EvalReportFormatError extends DurableAgentError {
  static override isInstance = guard<EvalReportFormatError>("EvalReportFormatError");
}
