/** The typed error a failed run rejects with, from the Temporal failure that ended its workflow. */
import { RunFailedError } from "../errors.js";
import { fromFailure, usageOfFailure } from "../core/typed-failures.js";
import { loadTemporalClient } from "./temporal-sdk.js";

/** A failed run's typed error (with the run's usage), or a `RunFailedError` when the failure carries none. */
export async function toRunError(workflowId: string, error: unknown): Promise<Error> {
  const { WorkflowFailedError } = await loadTemporalClient();
  if (!(error instanceof WorkflowFailedError)) return error as Error;
  const typed = fromFailure(error);
  if (typed) return typed;
  const cause = error.cause ?? error;
  const failed = new RunFailedError(workflowId, cause instanceof Error ? cause.message : String(cause), cause);
  const usage = usageOfFailure(error);
  if (usage) failed.usage = usage;
  return failed;
}
