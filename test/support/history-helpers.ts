/** Reading histories in tests: decoded payloads, small pages, continue-as-new chains. */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { historyFromJSON, historyToJSON } from "@temporalio/common/lib/proto-utils.js";
import type { Client, WorkflowHandle } from "@temporalio/client";
import { Worker } from "@temporalio/worker";
import { inject } from "vitest";
import type { temporal } from "@temporalio/proto";

/** Every payload of a history, decoded to text. */
export function decodedHistory(history: Parameters<typeof historyToJSON>[0]): string {
  return historyToJSON(history).replace(/"data":\s*"([A-Za-z0-9+/=]+)"/g, (_m: string, data: string) =>
    Buffer.from(data, "base64").toString("utf8"),
  );
}

/** A run's history events, read in small pages (a run with large payloads can exceed one gRPC message). */
export async function historyEvents(client: Client, workflowId: string, runId: string) {
  const events: temporal.api.history.v1.IHistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: "default",
      execution: { workflowId, runId },
      maximumPageSize: 2,
      nextPageToken,
    });
    events.push(...(page.history?.events ?? []));
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return events;
}

/** The run ids of a workflow's continue-as-new chain, first to last. */
export async function runChain(client: Client, workflowId: string, firstRunId: string): Promise<string[]> {
  const chain = [firstRunId];
  for (;;) {
    const events = await historyEvents(client, workflowId, chain.at(-1)!);
    const next = events.at(-1)!.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    if (!next) return chain;
    chain.push(next);
  }
}

/**
 * The committed replay fixtures (test/fixtures/histories): each a history as JSON, or `{ workflowId,
 * history }` for runs whose workflow id matters on replay (sub-agents' ids derive from their caller's).
 */
export function committedFixtures(): { workflowId: string; history: unknown }[] {
  const dir = new URL("../fixtures/histories/", import.meta.url);
  return readdirSync(dir)
    .filter((file) => file.endsWith(".json"))
    .map((file) => {
      const json = JSON.parse(readFileSync(new URL(file, dir), "utf8")) as { workflowId?: string; history?: unknown };
      return "history" in json
        ? { workflowId: json.workflowId!, history: json.history }
        : { workflowId: file, history: json };
    });
}

/**
 * The run's history replays on the current workflow code; with RECORD_FIXTURES set it is kept as a
 * committed fixture too. `keepWorkflowId`: the fixture keeps the run's workflow id beside its history
 * and replays under it (ids the run derives from its own, such as a remote tool's activity id, must match).
 */
export async function replaysAndKeeps(
  handle: { workflow: WorkflowHandle },
  fixture: string,
  { keepWorkflowId = false } = {},
): Promise<void> {
  const history = JSON.parse(historyToJSON(await handle.workflow.fetchHistory()));
  const workflowId = keepWorkflowId ? handle.workflow.workflowId : fixture;
  if (process.env.RECORD_FIXTURES)
    writeFileSync(
      new URL(`../fixtures/histories/${fixture}.json`, import.meta.url),
      JSON.stringify(keepWorkflowId ? { workflowId, history } : history, null, 1) + "\n",
    );
  await Worker.runReplayHistory(
    { workflowBundle: { codePath: inject("workflowBundlePath") }, replayName: "durable-agent-replay" },
    historyFromJSON(history),
    workflowId,
  );
}

/**
 * The shape of each `tool.execute` result a history (as JSON) recorded, activities and local
 * activities alike: its `kind` when tagged, else which key told it apart before the tag
 * (`untagged approvalRequired`, `untagged subAgentCall`, `untagged handoff`, or `untagged result`).
 */
export function toolExecuteShapes(history: unknown): string[] {
  const events = (history as { events: temporal.api.history.v1.IHistoryEvent[] }).events;
  const decode = (payload: unknown) =>
    JSON.parse(Buffer.from((payload as { data: string }).data, "base64").toString("utf8")) as Record<string, unknown>;
  const scheduled = new Map<string, string>();
  const results: Record<string, unknown>[] = [];
  for (const event of events) {
    const s = event.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(String(event.eventId), s.activityType!.name!);
    const c = event.activityTaskCompletedEventAttributes;
    if (c && scheduled.get(String(c.scheduledEventId)) === "tool.execute") results.push(decode(c.result!.payloads![0]));
    const details = event.markerRecordedEventAttributes?.details as Record<string, { payloads: unknown[] }> | undefined;
    if (details?.data && decode(details.data.payloads[0]).activity_type === "tool.execute")
      results.push(decode(details.result!.payloads[0]));
  }
  return results.map((r) =>
    typeof r.kind === "string"
      ? r.kind
      : `untagged ${["approvalRequired", "subAgentCall", "handoff"].find((key) => key in r) ?? "result"}`,
  );
}
