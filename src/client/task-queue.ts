/** What the server knows of a task queue, for the warning about a run that no worker serves. */
import type { Client } from "@temporalio/client";
import { loadTemporalProto } from "../run-reads/index.js";

/** Whether any worker has polled the task queue for workflow tasks recently. */
export async function hasWorkflowPollers(client: Client, taskQueue: string): Promise<boolean> {
  const proto = await loadTemporalProto();
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: proto.temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (response.pollers ?? []).length > 0;
}
