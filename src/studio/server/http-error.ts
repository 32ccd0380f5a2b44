/** A request the studio cannot serve as asked: the JSON API answers `status` with `{ error: message }`. */
import { errorGuard } from "../../core/error-guard.js";
import { DurableAgentError } from "../../errors.js";

/** A bad request to the studio's API (a filter, a body, an unknown run or dataset): `status` is the HTTP status it gets. */
export class StudioRequestError extends DurableAgentError {
  override readonly name = "StudioRequestError";
  /** True for a `StudioRequestError`, even from another copy of the package. */
  static override isInstance = errorGuard<StudioRequestError>("StudioRequestError");
  constructor(
    readonly status: 400 | 403 | 404 | 409,
    message: string,
  ) {
    super(message);
  }
}
