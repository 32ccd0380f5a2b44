/** The typed errors of webhook handlers. */
import { errorGuard } from "../core/error-guard.js";
import { DurableAgentError } from "../errors.js";

/** An option of `createWebhookHandler()` or `hmacSha256Verifier()` is missing or invalid: `field` names it. */
export class WebhookOptionsError extends DurableAgentError {
  override readonly name = "WebhookOptionsError";
  /** True for a `WebhookOptionsError`, even from another copy of the package. */
  static override isInstance = errorGuard<WebhookOptionsError>("WebhookOptionsError");
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`Invalid webhook option \`${field}\`: ${problem}`);
  }
}

/** A webhook request the handler cannot use (a body that is not JSON, an event without an idempotency key): answered 400, and nothing started. */
export class WebhookRequestError extends DurableAgentError {
  override readonly name = "WebhookRequestError";
  /** True for a `WebhookRequestError`, even from another copy of the package. */
  static override isInstance = errorGuard<WebhookRequestError>("WebhookRequestError");
  constructor(
    readonly problem: string,
    readonly status = 400,
    options?: { cause?: unknown },
  ) {
    super(`Invalid webhook request: ${problem}.`, options);
  }
}
