/** How a tool's result is judged and shown to the model. Pure functions; workflow-safe. */
import type { ToolCallRecord } from "./types.js";

function stringField(value: Record<string, unknown>, keys: string[]): string | undefined {
  for (const key of keys) if (typeof value[key] === "string") return value[key] as string;
  return undefined;
}

/**
 * The refusal reason a tool's output carries, if any: an object with `refused: true`, or with
 * `ok: false` and a `reason`, `error` or `message` string.
 */
export function refusalReasonOf(output: unknown): string | undefined {
  if (typeof output !== "object" || output === null || Array.isArray(output)) return undefined;
  const record = output as Record<string, unknown>;
  const reason = stringField(record, ["reason", "error", "message"]);
  if (record.refused === true) return reason ?? "the tool refused the call";
  if (record.ok === false) return reason;
  return undefined;
}

/** The tool message content the model sees for a call. */
export function toolResultContent(call: ToolCallRecord): string {
  if (call.status === "failed") return JSON.stringify({ error: call.error });
  if (call.status === "refused" && call.output === undefined) return JSON.stringify({ refused: true, reason: call.reason });
  return JSON.stringify(call.output ?? null);
}
