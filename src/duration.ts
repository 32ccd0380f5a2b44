/**
 * Durations in options, in one unit: Temporal's `Duration`, a number of milliseconds or a string
 * such as "30 seconds", "5m" or "2 hours" (read by Temporal's `msToNumber`, the `ms` library's
 * format). Each option checks its value here and throws its own typed error naming the option.
 */
import type { Duration } from "@temporalio/common";
import { msToNumber } from "@temporalio/common/lib/time.js";

/**
 * The duration in milliseconds, or undefined when `value` is not one: not a number or a string in
 * that format, negative, not finite, or zero when `positive`.
 */
export function durationMs(value: unknown, positive = false): number | undefined {
  if (typeof value !== "number" && typeof value !== "string") return undefined;
  let ms: number;
  try {
    ms = msToNumber(value as Duration);
  } catch {
    return undefined; // not in the `ms` format
  }
  return Number.isFinite(ms) && (positive ? ms > 0 : ms >= 0) ? ms : undefined;
}

/** What an options error says of a value that is not a duration, after the option's name. */
export function durationProblem(value: unknown, positive = false): string {
  return `must be a ${positive ? "positive " : ""}duration: a number of milliseconds or a string such as "30 seconds" or "5m" (got ${JSON.stringify(value)})`;
}
