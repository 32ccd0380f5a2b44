/** The schedule client's errors as the typed errors of schedules: a missing schedule, a taken id, a spec the server rejects. */
import { loadTemporalClient } from "../run-reads/index.js";
import { ScheduleExistsError, ScheduleOptionsError, UnknownScheduleError } from "./errors.js";

/** gRPC's INVALID_ARGUMENT. */
const INVALID_ARGUMENT = 3;

/** Which option a spec the server rejected came from, by its message ("Minute is not in range", "unknown time zone", "interval is too small"). */
function fieldOf(message: string): string {
  if (/time ?zone/i.test(message)) return "timezone";
  if (/interval/i.test(message)) return "every";
  if (/jitter/i.test(message)) return "jitter";
  return "cron";
}

/** `error` (thrown by a call on schedule `scheduleId`) as a typed error, or itself. */
export async function scheduleError(error: unknown, scheduleId: string): Promise<unknown> {
  const sdk = await loadTemporalClient();
  if (error instanceof sdk.ScheduleNotFoundError) return new UnknownScheduleError(scheduleId);
  if (error instanceof sdk.ScheduleAlreadyRunning) return new ScheduleExistsError(scheduleId);
  // The client turns the server's "Invalid schedule spec: <why>" into a TypeError with the why.
  if (error instanceof TypeError && !(error.cause instanceof Error))
    return new ScheduleOptionsError(fieldOf(error.message), `the server rejected it: ${error.message}`);
  const cause = (error as { cause?: { code?: number; details?: string } }).cause;
  if (error instanceof sdk.ServiceError && cause?.code === INVALID_ARGUMENT)
    return new ScheduleOptionsError("schedule", `the server rejected it: ${cause.details ?? error.message}`);
  return error;
}

/** Runs a call on schedule `scheduleId`, rethrowing its error as a typed one. */
export async function withTypedErrors<T>(scheduleId: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw await scheduleError(error, scheduleId);
  }
}
