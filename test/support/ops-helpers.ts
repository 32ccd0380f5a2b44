/** Helpers for the operations tests (issue 6): free ports, promises resolved from outside, history counts. */
import { createServer } from "node:net";
import type { WorkflowHandle } from "@temporalio/client";
import type { Agent, RunResult } from "../../src/index.js";
import { withWorker, type Harness } from "./harness.js";

/** A port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A promise with its `resolve`, for awaiting an event another callback reports. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Activity types in a run's history: how many were scheduled, started (attempts) and completed. */
export async function activityCounts(
  handle: WorkflowHandle,
  activityType: string,
): Promise<{ scheduled: number; attempts: number[]; completed: number }> {
  const events = (await handle.fetchHistory()).events ?? [];
  const scheduledIds = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activityType)
      .map((e) => String(e.eventId)),
  );
  const attempts = events
    .filter((e) => scheduledIds.has(String(e.activityTaskStartedEventAttributes?.scheduledEventId)))
    .map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 0);
  const completed = events.filter((e) =>
    scheduledIds.has(String(e.activityTaskCompletedEventAttributes?.scheduledEventId)),
  ).length;
  return { scheduled: scheduledIds.size, attempts, completed };
}

/** Starts a run of `agent`, cancels it once its tool has started, waits for the tool to see the abort, and returns the run's result. */
export function cancelWhileToolWaits(
  harness: Harness,
  agent: Agent,
  toolStarted: Promise<unknown>,
  toolAborted: Promise<unknown>,
): Promise<RunResult> {
  return withWorker(harness, [agent], async ({ taskQueue }) => {
    const handle = await agent.start("Wait", { client: harness.client, taskQueue });
    await toolStarted;
    await handle.cancel();
    await toolAborted;
    return handle.result();
  });
}
