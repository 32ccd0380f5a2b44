/** MCP toolsets over the fixture servers, and reading activity timings from a run's history. */
import { fileURLToPath } from "node:url";
import type { temporal } from "@temporalio/proto";
import { ai, type McpStdioOptions } from "../../src/index.js";

const STDIO_SERVER = fileURLToPath(new URL("../fixtures/mcp/stdio-server.ts", import.meta.url));
const HOSTILE_SERVER = fileURLToPath(new URL("../fixtures/mcp/hostile-server.mjs", import.meta.url));

/** The fixture server over stdio, started by the worker with tsx. */
export function stdioToolset(options: Partial<McpStdioOptions> = {}) {
  return ai.mcp({ name: "library", command: process.execPath, args: ["--import", "tsx", STDIO_SERVER], ...options });
}

/** The hostile server (hand-written JSON-RPC over stdio). */
export function hostileToolset(options: Partial<McpStdioOptions> = {}) {
  return ai.mcp({
    name: "hostile",
    command: process.execPath,
    args: [HOSTILE_SERVER],
    timeout: "1 second",
    ...options,
  });
}

/** Milliseconds from start to completion of each activity of the history, with its type, in order. */
export function activityDurations(history: temporal.api.history.v1.IHistory): Array<{ type: string; ms: number }> {
  const events = history.events ?? [];
  const time = (e: temporal.api.history.v1.IHistoryEvent) =>
    Number(e.eventTime!.seconds) * 1000 + Math.round((e.eventTime!.nanos ?? 0) / 1e6);
  return events.flatMap((e) => {
    const done = e.activityTaskCompletedEventAttributes;
    if (!done) return [];
    const scheduled = events.find((s) => Number(s.eventId) === Number(done.scheduledEventId));
    const started = events.find((s) => Number(s.eventId) === Number(done.startedEventId));
    return [
      { type: scheduled!.activityTaskScheduledEventAttributes!.activityType!.name!, ms: time(e) - time(started!) },
    ];
  });
}

/** The UI summary of each scheduled activity. */
export function activitySummaries(history: temporal.api.history.v1.IHistory): string[] {
  return (history.events ?? [])
    .filter((e) => e.activityTaskScheduledEventAttributes)
    .map((e) => JSON.parse(Buffer.from(e.userMetadata!.summary!.data!).toString("utf8")) as string);
}
