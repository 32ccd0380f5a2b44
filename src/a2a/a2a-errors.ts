/**
 * What an A2A caller is told when a request fails for a reason of this library's: a typed error
 * the caller can fix (bad input, an ended session, a decision the run refused) is invalid params
 * with its message; anything else (Temporal unreachable, a bug) is logged here, and the caller gets
 * an internal error with a sentence meant for a person.
 */
import {
  ApprovalError,
  ContextValidationError,
  InvalidInputError,
  PayloadTooLargeError,
  SessionEndedError,
} from "../errors.js";
import { TemporalConnectionError } from "../errors.js";
import type { A2ASdk } from "./load-sdk.js";

const CALLERS_TO_FIX = [
  InvalidInputError,
  ContextValidationError,
  PayloadTooLargeError,
  SessionEndedError,
  ApprovalError,
];

/** The A2A error for `error`, thrown by a request handler's method named `what`. */
export function toA2AError(error: unknown, sdk: A2ASdk, what: string): unknown {
  if (error instanceof sdk.A2AError) return error;
  if (CALLERS_TO_FIX.some((type) => type.isInstance(error)))
    return sdk.A2AError.invalidParams((error as Error).message);
  console.error(`durable-agent a2a: ${what}:`, error);
  return sdk.A2AError.internalError(
    TemporalConnectionError.isInstance(error)
      ? "The agent server cannot reach Temporal right now; try again shortly."
      : "The agent server failed on this request; its log has the details.",
  );
}

/** `method`, its failures turned into A2A errors. */
export function guarded<A extends unknown[], R>(sdk: A2ASdk, what: string, method: (...args: A) => Promise<R>) {
  return (...args: A): Promise<R> =>
    method(...args).catch((error: unknown) => {
      throw toA2AError(error, sdk, what);
    });
}

/** `stream`, its failures turned into A2A errors. */
export function guardedStream<A extends unknown[], T>(
  sdk: A2ASdk,
  what: string,
  stream: (...args: A) => AsyncGenerator<T>,
) {
  return async function* (...args: A): AsyncGenerator<T> {
    try {
      yield* stream(...args);
    } catch (error) {
      throw toA2AError(error, sdk, what);
    }
  };
}
