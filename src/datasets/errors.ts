import { errorGuard } from "../core/error-guard.js";
import { DurableAgentError } from "../errors.js";

/** A run could not be read as a case: `workflowId` names it, the message says why. */
export class DatasetError extends DurableAgentError {
  override readonly name = "DatasetError";
  /** True for a `DatasetError`, even from another copy of the package. */
  static override isInstance = errorGuard<DatasetError>("DatasetError");
  constructor(
    readonly workflowId: string,
    problem: string,
  ) {
    super(`Cannot read run ${workflowId} as an eval case: ${problem}.`);
  }
}

/** A case file (JSON Lines) has a line that is not a case: `line` (1-based) and `field` say where. */
export class CaseFileError extends DurableAgentError {
  override readonly name = "CaseFileError";
  /** True for a `CaseFileError`, even from another copy of the package. */
  static override isInstance = errorGuard<CaseFileError>("CaseFileError");
  constructor(
    readonly file: string,
    readonly line: number,
    readonly field: string,
    problem: string,
  ) {
    super(
      `${file}:${line}: ${field ? `field \`${field}\`: ` : ""}${problem} (each line is one case; schema in docs/recorded-case.schema.json).`,
    );
  }
}
