/**
 * `GET /api/runs`: one page of runs from Temporal's visibility store per request (so 10,000 runs
 * page without being loaded), with the filters as a visibility query over durable-agent's search
 * attributes (set by workers created with `searchAttributes: true`).
 */
import type { Client, WorkflowExecutionInfo } from "@temporalio/client";
import { executionInfoFromRaw } from "@temporalio/client/lib/helpers.js";
import { defined } from "../../core/defined.js";
import { SESSION_WORKFLOW_NAME, WORKFLOW_NAME } from "../../core/constants.js";
import { SEARCH_ATTRIBUTES } from "../../core/search-attributes.js";
import type { FiredFilter, RunRow, RunsQuery, RunsResponse } from "../api-types.js";
import { StudioRequestError } from "./http-error.js";
import { RUN_STATUSES, runStatusOf, visibilityStatus } from "./run-status.js";

/** Rows per page unless asked. */
export const DEFAULT_PAGE_SIZE = 50;
/** The most rows a page may ask for. */
export const MAX_PAGE_SIZE = 1000;
/** gRPC's status for a query the server cannot parse (or a search attribute it does not know). */
const INVALID_ARGUMENT = 3;

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

/** The visibility query for the filters (agent runs and sessions only). */
export function runsVisibilityQuery(filters: Omit<RunsQuery, "pageSize" | "pageToken">): string {
  const conditions = [`WorkflowType IN (${quoted(WORKFLOW_NAME)}, ${quoted(SESSION_WORKFLOW_NAME)})`];
  if (filters.agent) conditions.push(`${SEARCH_ATTRIBUTES.agent.name} = ${quoted(filters.agent)}`);
  if (filters.version) conditions.push(`${SEARCH_ATTRIBUTES.version.name} = ${quoted(filters.version)}`);
  // Temporal sets it on every run a schedule starts.
  if (filters.schedule) conditions.push(`TemporalScheduledById = ${quoted(filters.schedule)}`);
  if (filters.stopReason) conditions.push(`${SEARCH_ATTRIBUTES.stopReason.name} = ${quoted(filters.stopReason)}`);
  if (filters.status) {
    const status = visibilityStatus(filters.status);
    if (!status)
      throw new StudioRequestError(
        400,
        `\`status\` must be one of ${RUN_STATUSES.join(", ")} (got "${filters.status}").`,
      );
    conditions.push(`ExecutionStatus = ${quoted(status)}`);
  }
  if (filters.fired) {
    if (!(filters.fired in FIRED))
      throw new StudioRequestError(
        400,
        `\`fired\` must be one of ${Object.keys(FIRED).join(", ")} (got "${filters.fired}").`,
      );
    conditions.push(FIRED[filters.fired]);
  }
  if (filters.from) conditions.push(`StartTime >= ${quoted(isoTime("from", filters.from))}`);
  if (filters.to) conditions.push(`StartTime < ${quoted(isoTime("to", filters.to))}`);
  if (filters.query?.trim()) conditions.push(`(${filters.query})`);
  return conditions.join(" AND ");
}

function rowOf(info: WorkflowExecutionInfo): RunRow {
  const attributes = info.typedSearchAttributes;
  const reprompts = attributes.get(SEARCH_ATTRIBUTES.reprompts);
  const refusals = attributes.get(SEARCH_ATTRIBUTES.refusals);
  const row: RunRow = {
    workflowId: info.workflowId,
    runId: info.runId,
    agent: attributes.get(SEARCH_ATTRIBUTES.agent) ?? info.type,
    status: runStatusOf(info.status.name),
    startTime: info.startTime.toISOString(),
    fired: {
      reprompted: (reprompts ?? 0) > 0,
      refusalRetried: (refusals ?? 0) > 0,
      backstopRan: attributes.get(SEARCH_ATTRIBUTES.backstopRan) === true,
    },
  };
  const optional = {
    version: attributes.get(SEARCH_ATTRIBUTES.version),
    stopReason: attributes.get(SEARCH_ATTRIBUTES.stopReason),
    closeTime: info.closeTime?.toISOString(),
    trips: attributes.get(SEARCH_ATTRIBUTES.trips),
    tokens: attributes.get(SEARCH_ATTRIBUTES.tokens),
    cost: attributes.get(SEARCH_ATTRIBUTES.costUsd),
    session: info.type === SESSION_WORKFLOW_NAME ? true : undefined,
  };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) Object.assign(row, { [key]: value });
  return row;
}

function pageSizeOf(text: string | undefined): number {
  if (text === undefined || text === "") return DEFAULT_PAGE_SIZE;
  const size = Number(text);
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE)
    throw new StudioRequestError(400, `\`pageSize\` must be an integer from 1 to ${MAX_PAGE_SIZE} (got "${text}").`);
  return size;
}

/** The visibility store's page token from `pageToken` (as `nextPageToken` gave it): JSON, in every store Temporal has. */
function pageTokenOf(text: string | undefined): Buffer {
  if (text === undefined || text === "") return Buffer.alloc(0);
  const token = Buffer.from(text, "base64url");
  try {
    JSON.parse(token.toString("utf8"));
  } catch {
    throw new StudioRequestError(400, "`pageToken` is not one the runs list gave: pass its `nextPageToken` as it is.");
  }
  return token;
}

/** One page of runs matching the query string's filters, and how long the visibility store took (for `Server-Timing`). */
export async function listRuns(
  client: Client,
  params: Record<string, string | undefined>,
): Promise<{ page: RunsResponse; visibilityMs: number }> {
  const query = runsVisibilityQuery(params);
  const started = performance.now();
  let response;
  try {
    response = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query,
      pageSize: pageSizeOf(params.pageSize),
      nextPageToken: pageTokenOf(params.pageToken),
    });
  } catch (error) {
    if ((error as { code?: number }).code === INVALID_ARGUMENT)
      throw new StudioRequestError(
        400,
        `The server rejected the visibility query ${query}: ${(error as Error).message}`,
      );
    throw error;
  }
  const visibilityMs = performance.now() - started;
  const { loadedDataConverter: converter } = client.options;
  const runs = await Promise.all(
    response.executions.map((raw) =>
      executionInfoFromRaw(raw, converter, raw, client.options.namespace).then(rowOf, async () => ({
        // A memo encrypted with a codec this client lacks (search attributes are never encrypted).
        ...rowOf(await executionInfoFromRaw({ ...raw, memo: null }, converter, raw, client.options.namespace)),
        encrypted: true,
      })),
    ),
  );
  const token = response.nextPageToken;
  const nextPageToken = token && token.length > 0 ? Buffer.from(token).toString("base64url") : undefined;
  return { page: { runs, ...defined({ nextPageToken }) }, visibilityMs };
}
