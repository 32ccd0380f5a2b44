/**
 * Temporal frontend requests, counted by the dev server itself: its Prometheus endpoint
 * (`temporal server start-dev --metrics-port`) exposes `service_requests`, one counter per
 * operation, incremented as each request arrives (the SDK's retries included). The endpoint
 * publishes the counters about once a second, and later under load: a read is current only once
 * the traffic has stopped for longer than that (`settledRequests`).
 */
import { setTimeout as sleep } from "node:timers/promises";

/** Requests the frontend received, by operation (`DescribeWorkflowExecution`, `QueryWorkflow`, ...). */
export type RequestCounts = Record<string, number>;

/** The frontend's `service_requests` counters in a Prometheus text exposition, summed over namespaces, by operation. */
export function parseFrontendRequests(text: string): RequestCounts {
  const counts: RequestCounts = {};
  for (const line of text.split("\n")) {
    if (!line.startsWith("service_requests{")) continue;
    const close = line.lastIndexOf("}");
    const labels = Object.fromEntries(
      [...line.slice("service_requests{".length, close).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [
        m[1],
        m[2],
      ]),
    );
    const value = Number(
      line
        .slice(close + 1)
        .trim()
        .split(/\s+/)[0],
    );
    if (labels.service_name !== "frontend" || !labels.operation || !Number.isFinite(value)) continue;
    counts[labels.operation] = (counts[labels.operation] ?? 0) + value;
  }
  return counts;
}

/** `after − before`, operation by operation (operations with no new request left out). */
export function requestsBetween(before: RequestCounts, after: RequestCounts): RequestCounts {
  const delta: RequestCounts = {};
  for (const [operation, count] of Object.entries(after)) {
    const added = count - (before[operation] ?? 0);
    if (added > 0) delta[operation] = added;
  }
  return delta;
}

/** Groups of operations the benchmark reports apart: reads of a run by its watchers, and the worker's heartbeats. */
export const OPERATION_GROUPS = {
  describes: ["DescribeWorkflowExecution"],
  queries: ["QueryWorkflow"],
  /** Long polls (`waitNewEvent`) are counted as `PollWorkflowExecutionHistory`. */
  historyReads: ["GetWorkflowExecutionHistory", "PollWorkflowExecutionHistory"],
  heartbeats: ["RecordActivityTaskHeartbeat", "RecordActivityTaskHeartbeatById"],
} as const;

/** The requests of each group in `counts`, and of all operations (`total`). */
export function groupRequests(counts: RequestCounts): Record<keyof typeof OPERATION_GROUPS | "total", number> {
  const sum = (operations: readonly string[]) => operations.reduce((n, op) => n + (counts[op] ?? 0), 0);
  return {
    total: Object.values(counts).reduce((a, b) => a + b, 0),
    describes: sum(OPERATION_GROUPS.describes),
    queries: sum(OPERATION_GROUPS.queries),
    historyReads: sum(OPERATION_GROUPS.historyReads),
    heartbeats: sum(OPERATION_GROUPS.heartbeats),
  };
}

/** The counters as last published. */
export async function frontendRequests(metricsUrl: string): Promise<RequestCounts> {
  return parseFrontendRequests(await (await fetch(metricsUrl)).text());
}

/** Longer than the endpoint's publication period (about 1 s). */
const PUBLICATION_PERIOD_MS = 1_500;
/** How often the endpoint is read while waiting. */
const READ_EVERY_MS = 50;

const totalOf = (counts: RequestCounts) => Object.values(counts).reduce((a, b) => a + b, 0);

/**
 * The counters once traffic has stopped: read until they stay the same for longer than a
 * publication period. (Under load the published counters lag the requests by more than a period,
 * so a read while requests flow is not current.)
 */
export async function settledRequests(metricsUrl: string): Promise<RequestCounts> {
  let last = await frontendRequests(metricsUrl);
  for (let since = Date.now(); Date.now() - since < PUBLICATION_PERIOD_MS;) {
    await sleep(READ_EVERY_MS);
    const now = await frontendRequests(metricsUrl);
    if (totalOf(now) === totalOf(last)) continue;
    last = now;
    since = Date.now();
  }
  return last;
}
