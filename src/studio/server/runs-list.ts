/**
 * `GET /api/runs`: one page of runs from Temporal's visibility store per request (so 10,000 runs
 * page without being loaded), with the filters as a visibility query over durable-agent's search
 * attributes (set by workers created with `searchAttributes: true`). Each row adds what its input
 * says (the first words; the agent's name, for a run without the attributes), and a running run
 * how many calls wait for approval (asked of a worker).
 */
import type { Client, WorkflowExecutionInfo } from "@temporalio/client";
import { executionInfoFromRaw } from "@temporalio/client/lib/helpers.js";
import { defined } from "../../core/defined.js";
import { EVAL_WORKFLOW_ID_PREFIX, SESSION_WORKFLOW_NAME, WORKFLOW_NAME } from "../../core/constants.js";
import { pendingApprovalsQuery } from "../../workflows/definitions.js";
import { decodePageToken, encodePageToken, listExecutionsPage } from "../../run-reads/index.js";
import { SEARCH_ATTRIBUTES } from "../../core/search-attributes.js";
import type { PendingApproval } from "../../core/types.js";
import type { FiredFilter, RunRow, RunsQuery, RunsResponse } from "../api-types.js";
import { StudioRequestError } from "./http-error.js";
import type { RunInput, RunInputs } from "./run-inputs.js";
import { isRunStatus, RUN_STATUSES, runStatusOf, statusCondition } from "./run-status.js";

/** Rows per page unless asked. */
export const DEFAULT_PAGE_SIZE = 50;
/** The most rows a page may ask for. */
export const MAX_PAGE_SIZE = 1000;
/** How long a worker has to say which calls of a running run wait for approval. */
const APPROVALS_DEADLINE_MS = 2_000;
/** `awaiting=approval` reads running runs a visibility page of this size at a time... */
const AWAITING_SCAN_PAGE = 100;
/** ...and a filtered page (awaiting approval, or an agent) reads at most this many runs in one request (the next request goes on from there). */
export const AWAITING_SCAN_MAX = 1_000;

const quoted = (value: string) => `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

/** What each "contract fired" filter asks of the search attributes. */
const FIRED: Record<FiredFilter, string> = {
  reprompted: `${SEARCH_ATTRIBUTES.reprompts.name} > 0`,
  refusalRetried: `${SEARCH_ATTRIBUTES.refusals.name} > 0`,
  backstopRan: `${SEARCH_ATTRIBUTES.backstopRan.name} = true`,
};

function isoTime(field: string, value: string): string {
  const time = new Date(value);
  if (Number.isNaN(time.getTime()))
    throw new StudioRequestError(400, `\`${field}\` must be an ISO 8601 time (got "${value}").`);
  return time.toISOString();
}

/** The visibility query for the filters (agent runs and sessions only; the runs evals started unless `evals=show`). */
export function runsVisibilityQuery(filters: Omit<RunsQuery, "pageSize" | "pageToken">): string {
  const conditions = [`WorkflowType IN (${quoted(WORKFLOW_NAME)}, ${quoted(SESSION_WORKFLOW_NAME)})`];
  const stopReason = SEARCH_ATTRIBUTES.stopReason.name;
  // A run without search attributes (a worker without `searchAttributes: true`) is matched by its input's agent (rowsOf).
  if (filters.agent)
    conditions.push(
      `(${SEARCH_ATTRIBUTES.agent.name} = ${quoted(filters.agent)} OR ${SEARCH_ATTRIBUTES.agent.name} IS NULL)`,
    );
  if (filters.version) conditions.push(`${SEARCH_ATTRIBUTES.version.name} = ${quoted(filters.version)}`);
  // Temporal sets it on every run a schedule starts.
  if (filters.schedule) conditions.push(`TemporalScheduledById = ${quoted(filters.schedule)}`);
  if (filters.stopReason) conditions.push(`${stopReason} = ${quoted(filters.stopReason)}`);
  if (filters.status) {
    if (!isRunStatus(filters.status))
      throw new StudioRequestError(
        400,
        `\`status\` must be one of ${RUN_STATUSES.join(", ")} (got "${filters.status}").`,
      );
    conditions.push(statusCondition(filters.status, stopReason));
  }
  if (filters.fired) {
    if (!(filters.fired in FIRED))
      throw new StudioRequestError(
        400,
        `\`fired\` must be one of ${Object.keys(FIRED).join(", ")} (got "${filters.fired}").`,
      );
    conditions.push(FIRED[filters.fired]);
  }
  if (filters.awaiting !== undefined) {
    if (filters.awaiting !== "approval")
      throw new StudioRequestError(400, `\`awaiting\` must be "approval" (got "${filters.awaiting}").`);
    conditions.push(`ExecutionStatus = 'Running'`);
  }
  if (filters.evals !== undefined && filters.evals !== "show")
    throw new StudioRequestError(400, `\`evals\` must be "show" (got "${filters.evals}").`);
  if (filters.evals !== "show") conditions.push(`WorkflowId NOT STARTS_WITH ${quoted(EVAL_WORKFLOW_ID_PREFIX)}`);
  if (filters.from) conditions.push(`StartTime >= ${quoted(isoTime("from", filters.from))}`);
  if (filters.to) conditions.push(`StartTime < ${quoted(isoTime("to", filters.to))}`);
  if (filters.query?.trim()) conditions.push(`(${filters.query})`);
  return conditions.join(" AND ");
}

function rowOf(info: WorkflowExecutionInfo): RunRow {
  const attributes = info.typedSearchAttributes;
  const reprompts = attributes.get(SEARCH_ATTRIBUTES.reprompts);
  const refusals = attributes.get(SEARCH_ATTRIBUTES.refusals);
  const stopReason = attributes.get(SEARCH_ATTRIBUTES.stopReason);
  const row: RunRow = {
    workflowId: info.workflowId,
    runId: info.runId,
    agent: attributes.get(SEARCH_ATTRIBUTES.agent) ?? info.type,
    status: runStatusOf(info.status.name, stopReason),
    startTime: info.startTime.toISOString(),
    fired: {
      reprompted: (reprompts ?? 0) > 0,
      refusalRetried: (refusals ?? 0) > 0,
      backstopRan: attributes.get(SEARCH_ATTRIBUTES.backstopRan) === true,
    },
  };
  const optional = {
    version: attributes.get(SEARCH_ATTRIBUTES.version),
    stopReason,
    closeTime: info.closeTime?.toISOString(),
    trips: attributes.get(SEARCH_ATTRIBUTES.trips),
    tokens: attributes.get(SEARCH_ATTRIBUTES.tokens),
    cost: attributes.get(SEARCH_ATTRIBUTES.costUsd),
    session: info.type === SESSION_WORKFLOW_NAME ? true : undefined,
    eval: info.workflowId.startsWith(EVAL_WORKFLOW_ID_PREFIX) ? true : undefined,
  };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) Object.assign(row, { [key]: value });
  return row;
}

/** The calls of a running run that wait for approval: none when no worker answers in time. */
export async function pendingApprovals(client: Client, workflowId: string, runId: string): Promise<PendingApproval[]> {
  try {
    return await client.withDeadline(Date.now() + APPROVALS_DEADLINE_MS, () =>
      client.workflow.getHandle(workflowId, runId).query(pendingApprovalsQuery),
    );
  } catch {
    return [];
  }
}

/** A row with what its input says, and, while it runs, its calls waiting for approval. */
async function withInput(client: Client, inputs: RunInputs, row: RunRow, hasAgent: boolean): Promise<RunRow> {
  const [input, waiting] = await Promise.all([
    row.encrypted ? ({} as RunInput) : inputs.of(row.workflowId, row.runId),
    row.status === "running" ? pendingApprovals(client, row.workflowId, row.runId).then((p) => p.length) : 0,
  ]);
  return {
    ...row,
    ...(!hasAgent && input.agent ? { agent: input.agent } : {}),
    ...defined({ firstWords: input.firstWords }),
    ...(waiting > 0 ? { awaitingApproval: waiting } : {}),
  };
}

function pageSizeOf(text: string | undefined): number {
  if (text === undefined || text === "") return DEFAULT_PAGE_SIZE;
  const size = Number(text);
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE)
    throw new StudioRequestError(400, `\`pageSize\` must be an integer from 1 to ${MAX_PAGE_SIZE} (got "${text}").`);
  return size;
}

/** One visibility page as rows (with what their inputs say), and the next page's token. */
async function visibilityPage(
  client: Client,
  inputs: RunInputs,
  query: string,
  pageSize: number,
  pageToken: Uint8Array,
): Promise<{ runs: RunRow[]; token?: Uint8Array }> {
  const response = await listExecutionsPage(
    client,
    { query, pageSize, pageToken },
    (error) => new StudioRequestError(400, `The server rejected the visibility query ${query}: ${error.message}`),
  );
  const { loadedDataConverter: converter } = client.options;
  const runs = await Promise.all(
    response.executions.map(async (raw) => {
      const hasAgent = !!raw.searchAttributes?.indexedFields?.[SEARCH_ATTRIBUTES.agent.name];
      const row = await executionInfoFromRaw(raw, converter, raw, client.options.namespace).then(rowOf, async () => ({
        // A memo encrypted with a codec this client lacks (search attributes are never encrypted).
        ...rowOf(await executionInfoFromRaw({ ...raw, memo: null }, converter, raw, client.options.namespace)),
        encrypted: true,
      }));
      return withInput(client, inputs, row, hasAgent);
    }),
  );
  const token = response.nextPageToken;
  return { runs, ...(token && token.length > 0 ? { token } : {}) };
}

/** One page of runs matching the query string's filters, and how long the visibility store took (for `Server-Timing`). */
export async function listRuns(
  client: Client,
  inputs: RunInputs,
  params: Record<string, string | undefined>,
): Promise<{ page: RunsResponse; visibilityMs: number }> {
  const query = runsVisibilityQuery(params);
  const pageSize = pageSizeOf(params.pageSize);
  const keep = (row: RunRow) =>
    (!params.agent || row.agent === params.agent) && (params.awaiting !== "approval" || !!row.awaitingApproval);
  let token: Uint8Array | undefined = decodePageToken(params.pageToken);
  if (!token)
    throw new StudioRequestError(400, "`pageToken` is not one the runs list gave: pass its `nextPageToken` as it is.");
  const started = performance.now();
  const runs: RunRow[] = [];
  // Rows are kept after the visibility query where it cannot decide (a run without search attributes
  // matches an agent by its input; visibility cannot tell which runs wait for a person): read on until
  // the page is full, asking each time for no more rows than it lacks, so no kept row is dropped.
  const filtered = !!params.agent || params.awaiting === "approval";
  const scanPage = params.awaiting === "approval" ? AWAITING_SCAN_PAGE : undefined;
  let scanned = 0;
  do {
    const size = scanPage ?? pageSize - runs.length;
    const page: { runs: RunRow[]; token?: Uint8Array } = await visibilityPage(client, inputs, query, size, token);
    runs.push(...page.runs.filter(keep));
    token = page.token;
    scanned += size;
  } while (filtered && token && runs.length < pageSize && scanned < AWAITING_SCAN_MAX);
  const visibilityMs = performance.now() - started;
  const nextPageToken = encodePageToken(token);
  return { page: { runs, ...defined({ nextPageToken }) }, visibilityMs };
}
