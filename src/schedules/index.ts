/**
 * Schedules: an agent's runs on a Temporal Schedule (`agent.schedule()`), and the namespace's
 * agent schedules (`ai.schedules.list()`, `ai.schedules.get(id)`). A thin layer over Temporal's
 * schedule client; the runs carry the schedule's id as Temporal's `TemporalScheduledById`.
 */
export { createAgentSchedule } from "./create-schedule.js";
export { listSchedules, getSchedule, type ScheduleClientOptions } from "./list-schedules.js";
export {
  AgentSchedule,
  SCHEDULE_AGENT_MEMO,
  type AgentScheduleDescription,
  type AgentScheduleSummary,
  type ScheduledRun,
} from "./agent-schedule.js";
export type { AgentScheduleOptions, ScheduleChanges, ScheduleOverlap, ScheduleTiming } from "./schedule-options.js";
export { ScheduleOptionsError, ScheduleExistsError, UnknownScheduleError } from "./errors.js";
export { cronProblem } from "./cron-check.js";
