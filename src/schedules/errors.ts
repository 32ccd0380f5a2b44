/** The typed errors of schedules: bad options (a cron expression, an interval, an agent), a taken id, a missing schedule. */
import { errorGuard } from "../core/error-guard.js";
import { DurableAgentError } from "../errors.js";

/**
 * An option of `agent.schedule()`, `schedule.update()` or `durable-agent schedule create` is
 * invalid (a cron expression, an interval, a time zone, an overlap policy, an agent no module
 * exports): `field` names it. Nothing was created or changed.
 */
export class ScheduleOptionsError extends DurableAgentError {
  override readonly name = "ScheduleOptionsError";
  /** True for a `ScheduleOptionsError`, even from another copy of the package. */
  static override isInstance = errorGuard<ScheduleOptionsError>("ScheduleOptionsError");
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`Invalid schedule option \`${field}\`: ${problem}`);
  }
}

/** `agent.schedule(scheduleId, ...)` with an id a schedule of the namespace already has: nothing was created or changed. */
export class ScheduleExistsError extends DurableAgentError {
  override readonly name = "ScheduleExistsError";
  /** True for a `ScheduleExistsError`, even from another copy of the package. */
  static override isInstance = errorGuard<ScheduleExistsError>("ScheduleExistsError");
  constructor(readonly scheduleId: string) {
    super(
      `A schedule with id "${scheduleId}" already exists: change it with ai.schedules.get("${scheduleId}").update(...), ` +
        `or delete it first, or pick another id.`,
    );
  }
}

/** A schedule the namespace does not have (never created, or deleted). */
export class UnknownScheduleError extends DurableAgentError {
  override readonly name = "UnknownScheduleError";
  /** True for an `UnknownScheduleError`, even from another copy of the package. */
  static override isInstance = errorGuard<UnknownScheduleError>("UnknownScheduleError");
  constructor(readonly scheduleId: string) {
    super(`No schedule with id "${scheduleId}" in this namespace: ai.schedules.list() lists the agents' schedules.`);
  }
}
