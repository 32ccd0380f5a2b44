/** Errors of `agent.eval()` and its reports; each is a `DurableAgentError` with a stable `name`. */
import { errorGuard } from "../core/error-guard.js";
import { DurableAgentError } from "../errors.js";

/** A scorer returned something that is not `{ pass }` or `{ applicable: false }`. Reported as the scorer's error. */
export class ScorerResultError extends DurableAgentError {
  override readonly name = "ScorerResultError";
  static override isInstance = errorGuard<ScorerResultError>("ScorerResultError");
  constructor(
    readonly scorer: string,
    got: string,
  ) {
    super(`Scorer "${scorer}" returned ${got}; return { pass: boolean, reason?, score? } or { applicable: false }.`);
  }
}

/** A run of an eval did not finish within `timeout`; it was terminated. Counted as an infrastructure error. */
export class EvalTimeoutError extends DurableAgentError {
  override readonly name = "EvalTimeoutError";
  static override isInstance = errorGuard<EvalTimeoutError>("EvalTimeoutError");
  constructor(
    readonly workflowId: string,
    readonly timeoutMs: number,
  ) {
    super(
      `Run ${workflowId} did not finish within ${timeoutMs} ms and was terminated. Is a worker polling the task queue?`,
    );
  }
}

/** `report.assertPassed()` found failures, scorer errors or infrastructure errors; the message lists them. */
export class EvalAssertionError extends DurableAgentError {
  override readonly name = "EvalAssertionError";
  static override isInstance = errorGuard<EvalAssertionError>("EvalAssertionError");
}

/** A report file is not a report of this schema version. */
export class EvalReportFormatError extends DurableAgentError {
  override readonly name = "EvalReportFormatError";
  static override isInstance = errorGuard<EvalReportFormatError>("EvalReportFormatError");
}
