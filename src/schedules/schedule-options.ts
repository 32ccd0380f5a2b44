/** `agent.schedule()`'s options, checked, and read as Temporal's schedule spec and policies. */
import type { Client, ScheduleOverlapPolicy, ScheduleSpec } from "@temporalio/client";
import type { Duration } from "@temporalio/common";
import type { RunOptions } from "../client/start-run.js";
import type { RunInput } from "../client/normalize-input.js";
import { durationMs, durationProblem } from "../duration.js";
import { cronProblem } from "./cron-check.js";
import { ScheduleOptionsError } from "./errors.js";

/**
 * What a schedule does when a run is due while the last one it started is still going:
 * `"skip"` (the default) starts none; `"buffer-one"` starts one when the last ends (at most one
 * waits); `"allow-all"` starts it anyway; `"cancel-other"` cancels the running one, then starts.
 */
export type ScheduleOverlap = "skip" | "buffer-one" | "allow-all" | "cancel-other";

/** Each overlap option as Temporal's `ScheduleOverlapPolicy`. */
export const OVERLAP_POLICIES: Record<ScheduleOverlap, ScheduleOverlapPolicy> = {
  skip: "SKIP",
  "buffer-one": "BUFFER_ONE",
  "allow-all": "ALLOW_ALL",
  "cancel-other": "CANCEL_OTHER",
};

/** When a schedule's runs are due: a cron expression or an interval, with the zone and jitter. */
export interface ScheduleTiming {
  /** A cron expression such as `"0 9 * * MON-FRI"` (5 fields; 6 with a year; 7 with a second first), or a macro such as `"@daily"`. */
  cron?: string;
  /** An interval, e.g. `"2s"`, `"1 hour"` or milliseconds: a run every this long (at least a second). */
  every?: Duration;
  /** The IANA time zone a cron expression is read in, e.g. `"Europe/Paris"` (default UTC). */
  timezone?: string;
  /** Start each run up to this much later than due, at random (spreads many schedules' runs). */
  jitter?: Duration;
}

/** What `schedule.update()` may change; fields left out keep their value. */
export interface ScheduleChanges<Context = unknown> extends ScheduleTiming {
  /** The input every run starts with. */
  input?: RunInput;
  /** The runs' context (checked by the worker when a run starts). */
  context?: Context;
  /** See `ScheduleOverlap`. */
  overlap?: ScheduleOverlap;
  /** Pause the schedule when a run it started fails. */
  pauseOnFailure?: boolean;
}

/** Options of `agent.schedule(scheduleId, options)`: exactly one of `cron` and `every`, and the runs' `input`. */
export interface AgentScheduleOptions<Context = unknown>
  extends ScheduleTiming, Pick<RunOptions<Context>, "context" | "taskQueue" | "timeout" | "budget" | "modelSettings"> {
  /** The input every run starts with, as `agent.start(input)` takes it. */
  input: RunInput;
  /** See `ScheduleOverlap`; default `"skip"`. */
  overlap?: ScheduleOverlap;
  /** Pause the schedule when a run it started fails (default false: later runs go on). */
  pauseOnFailure?: boolean;
  /** A note kept with the schedule (shown by `describe()`, the CLI and Temporal's UI). */
  note?: string;
  /** Create the schedule paused (default false). */
  paused?: boolean;
  /** The Temporal client; default one connected from `TEMPORAL_ADDRESS` / `TEMPORAL_NAMESPACE`. */
  client?: Client;
}

/** The schedule's id: a non-empty string without control characters. */
export function checkScheduleId(scheduleId: unknown): string {
  if (typeof scheduleId !== "string" || scheduleId.trim() === "" || /[\p{Cc}]/u.test(scheduleId))
    throw new ScheduleOptionsError(
      "scheduleId",
      `must be a non-empty string without control characters (got ${JSON.stringify(scheduleId)})`,
    );
  return scheduleId;
}

/** `overlap`, as Temporal's policy. */
export function overlapPolicy(overlap: unknown = "skip"): ScheduleOverlapPolicy {
  if (typeof overlap !== "string" || !(overlap in OVERLAP_POLICIES))
    throw new ScheduleOptionsError(
      "overlap",
      `must be one of ${Object.keys(OVERLAP_POLICIES)
        .map((o) => `"${o}"`)
        .join(", ")} (got ${JSON.stringify(overlap)})`,
    );
  return OVERLAP_POLICIES[overlap as ScheduleOverlap];
}

/** The time zone, checked against the zones this runtime knows (the server knows the same IANA names). */
function checkTimezone(timezone: unknown): string {
  if (typeof timezone === "string" && timezone !== "") {
    try {
      new Intl.DateTimeFormat("en", { timeZone: timezone });
      return timezone;
    } catch {
      // not a zone: the error below
    }
  }
  throw new ScheduleOptionsError(
    "timezone",
    `must be an IANA time zone such as "Europe/Paris" (got ${JSON.stringify(timezone)})`,
  );
}

/** The `cron` or `every` part of a spec: exactly one of them, checked. */
export function timingSpec(
  timing: Pick<ScheduleTiming, "cron" | "every">,
): Pick<ScheduleSpec, "cronExpressions" | "intervals"> {
  const { cron, every } = timing;
  if ((cron === undefined) === (every === undefined))
    throw new ScheduleOptionsError(
      cron === undefined ? "cron" : "every",
      cron === undefined
        ? 'give `cron` (e.g. "0 9 * * MON-FRI") or `every` (e.g. "1 hour")'
        : "give `cron` or `every`, not both",
    );
  if (cron !== undefined) {
    const problem = typeof cron === "string" ? cronProblem(cron) : `must be a string (got ${JSON.stringify(cron)})`;
    if (problem) throw new ScheduleOptionsError("cron", `${JSON.stringify(cron)}: ${problem}`);
    return { cronExpressions: [cron], intervals: [] };
  }
  const ms = durationMs(every, true);
  if (ms === undefined) throw new ScheduleOptionsError("every", durationProblem(every, true));
  if (ms < 1000)
    throw new ScheduleOptionsError(
      "every",
      `must be at least a second, Temporal's smallest interval (got ${JSON.stringify(every)})`,
    );
  return { cronExpressions: [], intervals: [{ every: ms }] };
}

/** The zone and jitter part of a spec, checked (only the fields given). */
export function zoneAndJitter(
  timing: Pick<ScheduleTiming, "timezone" | "jitter">,
): Pick<ScheduleSpec, "timezone" | "jitter"> {
  const spec: Pick<ScheduleSpec, "timezone" | "jitter"> = {};
  if (timing.timezone !== undefined) spec.timezone = checkTimezone(timing.timezone);
  if (timing.jitter !== undefined) {
    const ms = durationMs(timing.jitter);
    if (ms === undefined) throw new ScheduleOptionsError("jitter", durationProblem(timing.jitter));
    spec.jitter = ms;
  }
  return spec;
}

/** `pauseOnFailure`: a boolean. */
export function checkPauseOnFailure(value: unknown): boolean {
  if (value !== undefined && typeof value !== "boolean")
    throw new ScheduleOptionsError("pauseOnFailure", `must be true or false (got ${JSON.stringify(value)})`);
  return value === true;
}
