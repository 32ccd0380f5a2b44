/** Webhooks: a fetch handler that starts one agent run per event (`createWebhookHandler`), and the HMAC signature check (`hmacSha256Verifier`). */
export {
  createWebhookHandler,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type WebhookReader,
  type WebhookLogger,
} from "./webhook-handler.js";
export { hmacSha256Verifier, hmacSha256Signature, type HmacVerifierOptions } from "./hmac-verifier.js";
export { WebhookOptionsError, WebhookRequestError } from "./errors.js";
