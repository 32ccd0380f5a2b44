/** `GET /api/schedules`: the namespace's agent schedules with their next runs (`ai.schedules.list()`). */
import type { Client } from "@temporalio/client";
import { defined } from "../../core/defined.js";
import { listSchedules } from "../../schedules/index.js";
import type { SchedulesResponse } from "../api-types.js";

/** The agent schedules, as the page shows them. */
export async function listScheduleRows(client: Client): Promise<SchedulesResponse> {
  const schedules = await listSchedules({ client });
  return {
    schedules: schedules.map((s) => ({
      id: s.id,
      agent: s.agent,
      paused: s.paused,
      ...defined({ note: s.note }),
      nextRuns: s.nextRuns.map((time) => time.toISOString()),
      recentRuns: s.recentRuns.map((run) => ({ workflowId: run.workflowId, startedAt: run.startedAt.toISOString() })),
    })),
  };
}
