/** `ai.schedules.list()` and `ai.schedules.get(id)`: the namespace's agent schedules (those whose action starts `agentRun`). */
import type { Client } from "@temporalio/client";
import { getDefaultClient } from "../client/connection.js";
import { WORKFLOW_NAME } from "../core/constants.js";
import { defined } from "../core/defined.js";
import { AgentSchedule, SCHEDULE_AGENT_MEMO, scheduledRunOf, type AgentScheduleSummary } from "./agent-schedule.js";

/** Options of `ai.schedules.list()` and `ai.schedules.get()`. */
export interface ScheduleClientOptions {
  /** The Temporal client; default one connected from `TEMPORAL_ADDRESS` / `TEMPORAL_NAMESPACE`. */
  client?: Client;
}

/**
 * The agent schedules of the namespace, by id. The list comes from Temporal's visibility store,
 * which is eventually consistent: a schedule just created or deleted may take a moment to show
 * or go (`ai.schedules.get(id).describe()` is exact).
 */
export async function listSchedules(options: ScheduleClientOptions = {}): Promise<AgentScheduleSummary[]> {
  const client = options.client ?? (await getDefaultClient());
  const schedules: AgentScheduleSummary[] = [];
  for await (const summary of client.schedule.list()) {
    if (summary.action?.workflowType !== WORKFLOW_NAME) continue;
    const agent = summary.memo?.[SCHEDULE_AGENT_MEMO];
    schedules.push({
      id: summary.scheduleId,
      agent: typeof agent === "string" ? agent : "(unknown)",
      paused: summary.state.paused,
      ...defined({ note: summary.state.note || undefined }),
      nextRuns: summary.state.paused ? [] : summary.info.nextActionTimes,
      recentRuns: summary.info.recentActions.map(scheduledRunOf),
    });
  }
  return schedules.sort((a, b) => a.id.localeCompare(b.id));
}

/** The agent schedule of that id (no call is made until one of its methods is called). */
export function getSchedule(id: string, options: ScheduleClientOptions = {}): AgentSchedule {
  return new AgentSchedule(id, options.client);
}
