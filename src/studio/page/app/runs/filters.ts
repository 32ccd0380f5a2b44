/** The runs list's filters: read from and written to the hash's query, sent as `GET /api/runs`'s. */
import type { FiredFilter, RunsQuery, RunStatus } from "../../../api-types.js";

/** The filter fields, in the order the form shows them. */
export const FILTER_KEYS = [
  "agent",
  "version",
  "schedule",
  "status",
  "awaiting",
  "stopReason",
  "fired",
  "from",
  "to",
  "query",
  "evals",
] as const;

/** One filter field's name. */
export type FilterKey = (typeof FILTER_KEYS)[number];

/** The filters as the form holds them (strings; "" for none). */
export type Filters = Record<FilterKey, string>;

/** The statuses the visibility API reports. */
export const STATUSES: RunStatus[] = [
  "running",
  "completed",
  "failed",
  "cancelled",
  "terminated",
  "continued",
  "timed-out",
];

/** The stop reasons a run can end with. */
export const STOP_REASONS = ["answered", "max-trips", "budget", "invalid-output", "cancelled", "timed-out"];

/** "The contract fired" choices, with their labels. */
export const FIRED: Array<[FiredFilter, string]> = [
  ["reprompted", "re-prompted"],
  ["refusalRetried", "refusal retried"],
  ["backstopRan", "backstop ran"],
];

/** The filters in a hash query. */
export function filtersFrom(params: URLSearchParams): Filters {
  return Object.fromEntries(FILTER_KEYS.map((key) => [key, params.get(key) ?? ""])) as Filters;
}

/** `datetime-local` text (local time) as ISO 8601, or undefined. */
function iso(local: string): string | undefined {
  if (!local) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The filters as the API's query (empty ones left out, times as ISO 8601). */
export function toQuery(filters: Filters): Omit<RunsQuery, "pageSize" | "pageToken"> {
  const query: Omit<RunsQuery, "pageSize" | "pageToken"> = {};
  if (filters.agent) query.agent = filters.agent;
  if (filters.version) query.version = filters.version;
  if (filters.schedule) query.schedule = filters.schedule;
  if (filters.status) query.status = filters.status as RunStatus;
  if (filters.awaiting === "approval") query.awaiting = "approval";
  if (filters.evals === "show") query.evals = "show";
  if (filters.stopReason) query.stopReason = filters.stopReason;
  if (filters.fired) query.fired = filters.fired as FiredFilter;
  const from = iso(filters.from);
  if (from) query.from = from;
  const to = iso(filters.to);
  if (to) query.to = to;
  if (filters.query) query.query = filters.query;
  return query;
}
