/** How a tool's result is judged and shown to the model. Pure functions; workflow-safe. */
import type { RequestedToolCall, ToolCallRecord } from "./types.js";

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

/** The tool message content the model sees for a call (from its outcome alone). */
export function toolResultContent(call: Pick<ToolCallRecord, "status" | "output" | "error" | "reason">): string {
  if (call.status === "failed") return JSON.stringify({ error: call.error });
  if (call.status === "refused" && call.output === undefined)
    return JSON.stringify({ refused: true, reason: call.reason });
  return JSON.stringify(call.output ?? null);
}

/**
 * A tool call's outcome as `tool.execute` returns it: the record without what the workflow already
 * holds (the call's id and name, the trip, and the input when it is the call's arguments parsed),
 * so the history does not repeat them. Histories recorded before carry whole records; both read the same.
 */
export type ToolCallResult = Omit<ToolCallRecord, "id" | "name" | "trip" | "input"> & { input?: unknown };

/** The call's arguments parsed (empty text is `{}`), or the syntax error. */
export function parseToolArguments(call: RequestedToolCall): unknown {
  try {
    return call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
  } catch (error) {
    return error as SyntaxError;
  }
}

/** The outcome `fields` of `call` with its input left out when it is `parsed`, the call's arguments parsed. */
export function toolCallResult(fields: ToolCallResult & { input: unknown }, parsed: unknown): ToolCallResult {
  if (fields.input !== parsed || parsed instanceof SyntaxError) return fields;
  const { input: _input, ...rest } = fields;
  return rest;
}

/** The whole record of `call` on `trip` from what `tool.execute` returned (a result, or a whole record from an older history). */
export function toolCallRecord(
  call: RequestedToolCall,
  trip: number,
  result: ToolCallResult | ToolCallRecord,
): ToolCallRecord {
  const { input, ...rest } = result;
  const parsed = "input" in result ? input : parseToolArguments(call);
  return {
    id: call.id,
    name: call.name,
    trip,
    input: parsed instanceof SyntaxError ? call.arguments : parsed,
    ...rest,
  };
}
