/**
 * Worker-side reads of a run's conversation, tool calls and trace, in pages through the
 * `run-page` query, so model calls never carry the conversation in their (recorded) input.
 */
import type { Context } from "@temporalio/activity";
import type { Client } from "@temporalio/client";
import type { RunPage, RunPart } from "../core/paging.js";
import { contextQuery, runPageQuery } from "../workflows/definitions.js";

/** Where a run's state is read from: a workflow and its run (default: the latest run). */
export interface RunRef {
  workflowId: string;
  runId?: string;
}

/** The run an activity was scheduled by. */
export function runRefOf(context: Context): Required<RunRef> {
  const execution = context.info.workflowExecution;
  if (!execution) throw new Error("this activity must be scheduled by an agentRun workflow");
  return { workflowId: execution.workflowId, runId: execution.runId };
}

/**
 * gRPC codes of a query worth asking again: DEADLINE_EXCEEDED ("query timed out before a worker
 * could process it": a worker busy replaying a large run) and UNAVAILABLE (a server briefly away).
 */
const RETRIED_QUERY_CODES = new Set([4, 14]);
const QUERY_ATTEMPTS = 3;

function hasRetriedCode(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++)
    if (RETRIED_QUERY_CODES.has((e as { code?: unknown }).code as number)) return true;
  return false;
}

/** A read-only query, asked up to QUERY_ATTEMPTS times while it fails for a busy worker or an unreachable server. */
async function queryPatiently<T>(ask: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ask();
    } catch (error) {
      if (attempt >= QUERY_ATTEMPTS || !hasRetriedCode(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
    }
  }
}

/** Reads `part` of a run from `from` up to `to` (exclusive; default: all of it), page by page. */
export async function readRunPart<T>(
  client: Client,
  ref: RunRef,
  part: RunPart,
  from: number,
  to?: number,
  maxBytes?: number,
): Promise<T[]> {
  const handle = client.workflow.getHandle(ref.workflowId, ref.runId);
  const items: T[] = [];
  for (let next = from, end = to ?? Infinity; next < end;) {
    const page = (await queryPatiently(() => handle.query(runPageQuery, part, next, maxBytes))) as RunPage<T>;
    if (to === undefined) end = page.total;
    else if (page.items.length === 0)
      throw new Error(`run ${ref.runId} has ${page.total} ${part}, fewer than the ${to} asked for`);
    items.push(...page.items.slice(0, end - next));
    next = page.next;
  }
  return items;
}

const CACHED_RUNS = 256;
const contexts = new Map<string, unknown>();

/** The run's context (`run(input, { context })`): read once per run and worker, by query, since it never changes. */
export async function readRunContext(client: Client, ref: Required<RunRef>): Promise<unknown> {
  if (contexts.has(ref.runId)) return contexts.get(ref.runId);
  const context = await client.workflow.getHandle(ref.workflowId, ref.runId).query(contextQuery);
  contexts.set(ref.runId, context);
  if (contexts.size > CACHED_RUNS) contexts.delete(contexts.keys().next().value!);
  return context;
}

/** The context for an activity whose run has one (`hasContext`), else undefined without a query. */
export function contextFor(context: Context, hasContext: boolean | undefined): Promise<unknown> {
  return hasContext ? readRunContext(context.client, runRefOf(context)) : Promise.resolve(undefined);
}
