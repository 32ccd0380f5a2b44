/**
 * Limits on what the model may ask for and what tools may return: tool calls per answer, tool
 * input and tool output size. Defaults and the markers that show where a limit cut something.
 */
import { PAYLOAD_LIMIT_BYTES } from "./core/constants.js";

/**
 * Limits on what the model may ask for and what tools may return. The model is an untrusted
 * source of tool calls: these keep a misbehaving one from flooding the worker or the history.
 */
export interface AgentLimits {
  /** Tool calls the model may ask for in one answer; an answer with more fails the run with `TooManyToolCallsError` and executes none. Default 32. */
  toolCallsPerAnswer?: number;
  /** Bytes of one tool call's arguments (JSON text); a larger call is refused without executing, and the model is told. Default 256 KiB. */
  toolInputBytes?: number;
  /** Bytes of one tool result as JSON; a larger result is cut to this size with a visible marker before the model sees it. Default 1 MiB. */
  toolOutputBytes?: number;
}

/** An agent's limits with every default filled in. */
export type ResolvedLimits = Required<AgentLimits>;

/** Defaults: generous for real models, small enough that one answer or one tool result never nears Temporal's 2 MB payload limit. */
export const DEFAULT_LIMITS: ResolvedLimits = {
  toolCallsPerAnswer: 32,
  toolInputBytes: 256 * 1024,
  toolOutputBytes: 1024 * 1024,
};

/**
 * A tool call record carries the input and the output in one activity result, so together they
 * must stay under the payload limit, with room for the envelope.
 */
export const MAX_TOOL_INPUT_PLUS_OUTPUT_BYTES = PAYLOAD_LIMIT_BYTES - 64 * 1024;

/** The agent's limits, defaulted. */
export function limitsOf(options: { limits?: AgentLimits }): ResolvedLimits {
  return { ...DEFAULT_LIMITS, ...definedOnly(options.limits ?? {}) };
}

function definedOnly(limits: AgentLimits): AgentLimits {
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
}

const utf8 = new TextEncoder();

/** Bytes of a string as UTF-8. */
export function utf8Bytes(text: string): number {
  return utf8.encode(text).length;
}

const OMITTED = /^\[durable-agent: (\d+) bytes of arguments omitted, over limits\.toolInputBytes \((\d+)\)\]$/;

/**
 * What replaces a tool call's arguments that are over `limits.toolInputBytes` in the model's
 * answer, so the conversation stays small; `tool.execute` refuses such a call and tells the model.
 */
export function omittedArguments(bytes: number, limit: number): string {
  return `[durable-agent: ${bytes} bytes of arguments omitted, over limits.toolInputBytes (${limit})]`;
}

/** The sizes in an `omittedArguments` marker, if `text` is one. */
export function parseOmittedArguments(text: string): { bytes: number; limit: number } | undefined {
  const match = OMITTED.exec(text);
  return match ? { bytes: Number(match[1]), limit: Number(match[2]) } : undefined;
}

/**
 * A tool output's JSON text cut to at most `limit` bytes (on a character boundary), followed by a
 * marker saying how large it was. The result, marker included, is at most `limit` bytes.
 */
export function truncateOutput(tool: string, json: string, limit: number): string {
  const bytes = utf8Bytes(json);
  const marker = ` …[truncated by durable-agent: the output of tool "${tool}" was ${bytes} bytes, over limits.toolOutputBytes (${limit})]`;
  const budget = Math.max(0, limit - utf8Bytes(marker));
  const head = Buffer.from(json, "utf8")
    .subarray(0, budget)
    .toString("utf8")
    .replace(/\uFFFD$/, "");
  return head + marker;
}
