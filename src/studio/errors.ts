/** The studio's typed errors. */
import { errorGuard } from "../core/error-guard.js";
import { DurableAgentError } from "../errors.js";

/** An option of `ai.studio()` (or `durable-agent studio`) is invalid: `field` names it. */
export class StudioOptionsError extends DurableAgentError {
  override readonly name = "StudioOptionsError";
  /** True for a `StudioOptionsError`, even from another copy of the package. */
  static override isInstance = errorGuard<StudioOptionsError>("StudioOptionsError");
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`Invalid studio option \`${field}\`: ${problem}`);
  }
}

/** The studio's page was not built: `folder` is where its assets were looked for. */
export class StudioAssetsMissingError extends DurableAgentError {
  override readonly name = "StudioAssetsMissingError";
  /** True for a `StudioAssetsMissingError`, even from another copy of the package. */
  static override isInstance = errorGuard<StudioAssetsMissingError>("StudioAssetsMissingError");
  constructor(readonly folder: string) {
    super(
      `The studio's page is not built: no index.html in ${folder}. Run \`npm run build:studio\` (\`npm run build\` runs it) in the durable-agent package.`,
    );
  }
}
