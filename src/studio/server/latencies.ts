/**
 * How long each model and tool call of a run took, from its history: an activity's scheduled and
 * closed events, named by the summary the workflow gives it ("model <id> · trip <n>",
 * "tool <name>"). Tool activities are matched to the run's tool calls by name, in order.
 */
import type { Client } from "@temporalio/client";
import type proto from "@temporalio/proto";
import { optionalTsToMs } from "@temporalio/common/lib/time.js";
import { loadPayloadDecoding } from "../../run-reads/index.js";
import { ACTIVITY } from "../../core/constants.js";
import type { ToolCallRecord } from "../../core/types.js";
import { historyEvents } from "../../datasets/read-run.js";
import type { Latencies } from "./conversation.js";

interface Scheduled {
  type: string;
  summary: string;
  at: number;
}

async function summaryOf(
  client: Client,
  payload: proto.temporal.api.common.v1.IPayload | null | undefined,
): Promise<string> {
  if (!payload) return "";
  const { decodeArrayFromPayloads } = await loadPayloadDecoding();
  const [summary] = await decodeArrayFromPayloads(client.options.loadedDataConverter, [payload]).catch(() => [""]);
  return typeof summary === "string" ? summary : "";
}

/** The run's model latencies by trip and tool latencies by call id (an empty map for what the history does not show). */
export async function readLatencies(
  client: Client,
  workflowId: string,
  runId: string,
  toolCalls: readonly ToolCallRecord[],
): Promise<Latencies> {
  const scheduled = new Map<string, Scheduled>();
  const model = new Map<number, number>();
  const tools: { name: string; ms: number }[] = [];
  for await (const event of historyEvents(client, workflowId, runId)) {
    const at = optionalTsToMs(event.eventTime) ?? 0;
    const start = event.activityTaskScheduledEventAttributes;
    if (start) {
      scheduled.set(String(event.eventId), {
        type: start.activityType?.name ?? "",
        summary: await summaryOf(client, event.userMetadata?.summary),
        at,
      });
      continue;
    }
    const closed =
      event.activityTaskCompletedEventAttributes ??
      event.activityTaskFailedEventAttributes ??
      event.activityTaskTimedOutEventAttributes ??
      event.activityTaskCanceledEventAttributes;
    const activity = closed ? scheduled.get(String(closed.scheduledEventId)) : undefined;
    if (!activity) continue;
    const ms = at - activity.at;
    if (activity.type === ACTIVITY.modelCall) {
      const trip = Number(/trip (\d+)/.exec(activity.summary)?.[1]);
      if (trip) model.set(trip, ms);
    } else if (activity.type === ACTIVITY.toolExecute) {
      const name = /^tool (\S+)/.exec(activity.summary)?.[1];
      if (name) tools.push({ name, ms });
    }
  }
  const byCall = new Map<string, number>();
  for (const call of toolCalls) {
    const index = tools.findIndex((tool) => tool.name === call.name);
    if (index < 0 || call.status === "refused") continue;
    byCall.set(call.id, tools[index]!.ms);
    tools.splice(index, 1);
  }
  return { model, tools: byCall };
}
