/**
 * What the capacity benchmark counts, each from the system that bills or bears it: Temporal's
 * billable actions and frontend requests (the server's own Prometheus counters), a run's history
 * bytes (as the server stores them), Redis's traffic (`INFO stats`), and PostgreSQL's writes
 * (`pg_stat_database`).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@temporalio/client";
import { chainHistorySize } from "../lib.js";
import { parseFrontendRequests } from "../watchers/server-metrics.js";

/** Counters by name. */
export type Counts = Record<string, number>;

/**
 * The server's `action` counters of one namespace, by `action_type` (`grpc_StartWorkflowExecution`,
 * `command_ScheduleActivityTask`, `grpc_RecordActivityTaskHeartbeat`, ...): Temporal Cloud's billable
 * actions, counted by the same code that meters them.
 */
export function parseActions(text: string, namespace: string): Counts {
  const counts: Counts = {};
  for (const line of text.split("\n")) {
    if (!line.startsWith("action{")) continue;
    const close = line.lastIndexOf("}");
    const labels = Object.fromEntries([...line.slice(7, close).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const value = Number(
      line
        .slice(close + 1)
        .trim()
        .split(/\s+/)[0],
    );
    if (labels.namespace !== namespace || !labels.action_type || !Number.isFinite(value)) continue;
    counts[labels.action_type] = (counts[labels.action_type] ?? 0) + value;
  }
  return counts;
}

/** `after − before`, name by name (names with nothing new left out). */
export function countsBetween(before: Counts, after: Counts): Counts {
  const delta: Counts = {};
  for (const [name, value] of Object.entries(after))
    if (value - (before[name] ?? 0) > 0) delta[name] = value - (before[name] ?? 0);
  return delta;
}

export const total = (counts: Counts) => Object.values(counts).reduce((a, b) => a + b, 0);

/** Billable actions and frontend requests, read once the server's published counters have stopped moving. */
export async function settledServerCounts(
  metricsUrl: string,
  namespace: string,
): Promise<{ actions: Counts; requests: Counts }> {
  const read = async () => {
    const text = await (await fetch(metricsUrl)).text();
    return { actions: parseActions(text, namespace), requests: parseFrontendRequests(text) };
  };
  let last = await read();
  for (let since = Date.now(); Date.now() - since < 2_500;) {
    await sleep(100);
    const now = await read();
    if (total(now.actions) === total(last.actions) && total(now.requests) === total(last.requests)) continue;
    last = now;
    since = Date.now();
  }
  return last;
}

/** A session's history summed over its continue-as-new chain. */
export async function sessionHistoryBytes(
  client: Client,
  workflowId: string,
): Promise<{ events: number; bytes: number; runs: number }> {
  const described = await client.workflow.getHandle(workflowId).describe();
  const firstRunId = described.raw.workflowExecutionInfo?.firstRunId || described.runId;
  return chainHistorySize(client, workflowId, firstRunId);
}

/** Redis's own traffic counters: commands processed, bytes in and out. */
export async function redisTraffic(url: string): Promise<Counts> {
  const { createClient } = await import("redis");
  const redis = createClient({ url });
  await redis.connect();
  try {
    const info = await redis.info("stats");
    const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, "m").exec(info)?.[1] ?? NaN);
    return {
      commands: field("total_commands_processed"),
      bytesIn: field("total_net_input_bytes"),
      bytesOut: field("total_net_output_bytes"),
    };
  } finally {
    await redis.quit();
  }
}

/** PostgreSQL's commits and rows written (inserted, updated, deleted) over every database, once its statistics settle. */
export async function settledPostgresWrites(connectionString: string): Promise<Counts> {
  const { default: pg } = await import("pg");
  const db = new pg.Client({ connectionString });
  await db.connect();
  const read = async (): Promise<Counts> => {
    const { rows } = await db.query<{ commits: string; rows: string }>(
      "SELECT sum(xact_commit)::text AS commits, sum(tup_inserted + tup_updated + tup_deleted)::text AS rows FROM pg_stat_database WHERE datname NOT LIKE 'template%'",
    );
    return { commits: Number(rows[0]!.commits), rowsWritten: Number(rows[0]!.rows) };
  };
  try {
    // Backends flush their statistics about once a second: read until two reads a while apart agree.
    let last = await read();
    for (;;) {
      await sleep(1_500);
      const now = await read();
      if (now.rowsWritten === last.rowsWritten) return now;
      last = now;
    }
  } finally {
    await db.end();
  }
}
