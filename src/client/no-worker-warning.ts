/**
 * The warning about a run that no worker serves: when a run's first workflow task has not started
 * a while after the start and no worker polls its task queue, say so once, naming the task queue,
 * the agent and how to start a worker. The run keeps waiting: a worker started later runs it.
 */
import type { Client, WorkflowHandle } from "@temporalio/client";
import { msToNumber } from "@temporalio/common/lib/time.js";
import type { Duration } from "@temporalio/common";
import { hasWorkflowPollers } from "./task-queue.js";

/** Where the client's warnings go. */
export interface RunLogger {
  /** Logs one warning. */
  warn(message: string): void;
}

/** Default wait before the check: long enough for a worker that is just starting up. */
export const NO_WORKER_WARNING_AFTER = "5 seconds";

/** The workflow has had a workflow task started (a started event follows the first two events). */
async function firstTaskStarted(handle: WorkflowHandle): Promise<boolean> {
  const description = await handle.describe();
  return description.status.name !== "RUNNING" || description.historyLength > 2;
}

/**
 * Schedules the one check of a run started on `taskQueue`; never keeps the process alive. Resolves
 * when the check is done: true when it warned.
 */
export function watchForNoWorker(
  client: Client,
  handle: WorkflowHandle,
  run: { agent: string; taskQueue: string; after: Duration; logger: RunLogger },
): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const check = async (): Promise<boolean> => {
      if ((await firstTaskStarted(handle)) || (await hasWorkflowPollers(client, run.taskQueue))) return false;
      run.logger.warn(
        `No worker polls task queue "${run.taskQueue}": run ${handle.workflowId} of agent "${run.agent}" is waiting for one, and starts when one comes. ` +
          `Start a worker that serves "${run.agent}" on task queue "${run.taskQueue}": \`npx durable-agent ` +
          `worker ./agents.js --task-queue ${run.taskQueue}\`, ` +
          `or \`await ai.worker({ agents: [${run.agent}], taskQueue: "${run.taskQueue}" })\` then \`.run()\`.`,
      );
      return true;
    };
    // The check is advice only: a failed describe (server gone, run deleted) changes nothing for the run.
    setTimeout(() => check().then(resolve, () => resolve(false)), msToNumber(run.after)).unref();
  });
}
