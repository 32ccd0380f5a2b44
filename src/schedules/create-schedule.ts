/**
 * `agent.schedule(scheduleId, options)`: a Temporal Schedule whose action starts the agent's run
 * (`agentRun`, with the arguments `agent.start()` sends, checked by the same `prepareRunStart`).
 * Every option is checked before the server is asked; what the server still rejects (a cron
 * expression this check let through, a taken id) comes back as the same typed errors, and nothing
 * is created.
 */
import type { ScheduleOptions } from "@temporalio/client";
import type { AgentDefinition } from "../agent/agent-definition.js";
import { getDefaultClient } from "../client/connection.js";
import { prepareRunStart } from "../client/start-run.js";
import { WORKFLOW_NAME } from "../core/constants.js";
import { defined } from "../core/defined.js";
import { AgentSchedule, SCHEDULE_AGENT_MEMO } from "./agent-schedule.js";
import { ScheduleOptionsError } from "./errors.js";
import { withTypedErrors } from "./schedule-errors-from-server.js";
import {
  checkPauseOnFailure,
  checkScheduleId,
  overlapPolicy,
  timingSpec,
  zoneAndJitter,
  type AgentScheduleOptions,
} from "./schedule-options.js";

/** Creates the schedule; throws `ScheduleOptionsError` for a bad option and `ScheduleExistsError` for a taken id. */
export async function createAgentSchedule(
  agent: AgentDefinition,
  scheduleId: string,
  options: AgentScheduleOptions,
): Promise<AgentSchedule> {
  checkScheduleId(scheduleId);
  if (typeof options !== "object" || options === null)
    throw new ScheduleOptionsError("options", "give { cron | every, input }");
  if (options.input === undefined) throw new ScheduleOptionsError("input", "give the input every run starts with");
  if (options.note !== undefined && typeof options.note !== "string")
    throw new ScheduleOptionsError("note", `must be a string (got ${JSON.stringify(options.note)})`);
  const spec = { ...timingSpec(options), ...zoneAndJitter(options) };
  const policies = {
    overlap: overlapPolicy(options.overlap),
    pauseOnFailure: checkPauseOnFailure(options.pauseOnFailure),
  };
  const { context, taskQueue, timeout, budget, modelSettings } = options;
  // The runs' workflow ids are `<agent>-<scheduleId>-<the time each was due>` (Temporal appends the time).
  const run = prepareRunStart(agent, options.input, {
    ...defined({ context, taskQueue, timeout, budget, modelSettings }),
    workflowId: `${agent.name}-${scheduleId}`,
  });
  const schedule: ScheduleOptions = {
    scheduleId,
    spec,
    action: {
      type: "startWorkflow",
      workflowType: WORKFLOW_NAME,
      taskQueue: run.taskQueue,
      workflowId: run.workflowId,
      args: [run.args],
      staticSummary: run.staticSummary,
    },
    policies,
    memo: { [SCHEDULE_AGENT_MEMO]: agent.name },
    state: { paused: options.paused === true, ...defined({ note: options.note }) },
  };
  const client = options.client ?? (await getDefaultClient());
  await withTypedErrors(scheduleId, () => client.schedule.create(schedule));
  return new AgentSchedule(scheduleId, client);
}
