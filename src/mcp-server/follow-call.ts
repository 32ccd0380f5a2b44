/**
 * Following a call's run to its result for the MCP client that waits: its text and trips as
 * `notifications/progress` (with a `progressToken`), each tool call waiting for approval as an
 * `elicitation/create` (accept approves, decline rejects, each decided by the caller), and the
 * result as the tool's result. A client without elicitation gets a result that says the call
 * waits for approval, with the run's id.
 */
import type { CallToolResult, ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { RunHandle } from "../client/run-handle.js";
import type { RunResult } from "../core/types.js";
import type { StreamedRunEvent } from "../core/run-events.js";
import { RunEventStream } from "../streaming/client/index.js";

/** Where a call's run is followed to: the caller, and what their client takes. */
export interface CallChannel {
  /** The caller, recorded as the decider of the approvals they answer. */
  by: string;
  /** Aborted when the client cancels the call or goes away: following stops (the run goes on unless cancelled). */
  signal: AbortSignal;
  /** Sends a progress message, when the client asked for progress. */
  progress?: (message: string) => Promise<void>;
  /** Asks the client (when it declares elicitation) to approve a tool call. */
  elicit?: (params: ElicitRequestFormParams) => Promise<ElicitResult>;
}

/** How long a call without progress waits for its result before it reads the run's events (for approvals). */
const APPROVAL_WATCH_AFTER_MS = 250;

/** Resolves after `ms` milliseconds, without keeping the process alive. */
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** The `_meta` key naming the run behind a tool result. */
export const RUN_META = "durable-agent/run";

/** What a call waits for, as a result: the run goes on, and its id is where to approve. */
function waitingResult(workflowId: string, tool: string, callId: string, why: string): CallToolResult {
  return {
    content: [
      {
        type: "text",
        text:
          `The call waits for approval of the tool "${tool}" (call ${callId}) ${why}. The run ${workflowId} goes on ` +
          `once it is approved or rejected (durable-agent approve ${workflowId} ${callId}, or the studio).`,
      },
    ],
    _meta: { [RUN_META]: { workflowId, waitingFor: { tool, callId } } },
  };
}

/** A run's result as the tool's result: the reply as text, the typed output as `structuredContent`; any stop but "answered" is an error. */
export function callResult(workflowId: string, result: RunResult, structured: boolean): CallToolResult {
  const answered = result.stopReason === "answered" && (!structured || result.output !== undefined);
  const text = answered ? result.reply : `The run stopped (${result.stopReason}). ${result.reply}`.trim();
  return {
    content: [{ type: "text", text }],
    ...(answered && structured ? { structuredContent: result.output as Record<string, unknown> } : {}),
    ...(answered ? {} : { isError: true }),
    _meta: { [RUN_META]: { workflowId, stopReason: result.stopReason } },
  };
}

/** A run that failed, as the tool's error result (the typed error's name and message). */
export function failedResult(workflowId: string, error: unknown): CallToolResult {
  const { name, message } = error instanceof Error ? error : { name: "Error", message: String(error) };
  return {
    content: [{ type: "text", text: `${name}: ${message}` }],
    isError: true,
    _meta: { [RUN_META]: { workflowId, error: name } },
  };
}

/** The progress message an event is, if any: a trip's start, a tool's start, a piece of the answer's text. */
function progressMessage(event: StreamedRunEvent): string | undefined {
  if (event.type === "text.delta") return event.text;
  if (event.type === "trip.started") return `trip ${event.trip}`;
  if (event.type === "tool.started") return `calling ${event.tool}`;
  return undefined;
}

/**
 * Asks the client to decide a call waiting for approval, and sends its decision; the result to
 * answer with when the call keeps waiting (no elicitation, or the client dismissed the question).
 */
async function decide(
  run: RunHandle,
  event: Extract<StreamedRunEvent, { type: "approval" }>,
  channel: CallChannel,
): Promise<CallToolResult | undefined> {
  const waiting = await run.pendingApprovals();
  if (!waiting.some((p) => p.callId === event.callId)) return undefined; // decided since (a retried call replays the run's events)
  if (!channel.elicit)
    return waitingResult(run.workflowId, event.tool, event.callId, "(this client takes no elicitation)");
  const answer = await channel.elicit({
    mode: "form",
    message: `Approve the call of "${event.tool}" with ${JSON.stringify(event.input ?? {})}? Accept approves it, decline rejects it.`,
    requestedSchema: { type: "object", properties: {} },
  });
  if (answer.action === "cancel")
    return waitingResult(run.workflowId, event.tool, event.callId, "(the question was dismissed)");
  if (answer.action === "accept")
    await run.approve(event.callId, { by: channel.by, note: "approved in the MCP client" });
  else await run.reject(event.callId, { by: channel.by, reason: "declined in the MCP client" });
  return undefined;
}

/** How far to follow: the run's own result, or a session message's with where the session's stream stood when it was answered. */
export interface FollowOptions {
  /** Whether the tool has an output schema (its output goes as `structuredContent`). */
  structured: boolean;
  /** Where the call's events start in the stream (a session message's turn). */
  fromOffset?: number;
  /** A session message: its result, and the session stream's next offset once it is answered (its events are all before it). */
  message?: { result: () => Promise<RunResult>; endOffset: () => Promise<number> };
}

/**
 * Follows the run from `fromOffset` to its result, as the tool's result; or to a call that keeps
 * waiting for approval. With progress, to the end of its events (a run's stream ends with it; a
 * session message's where the session's stream stood when the message was answered), so no text
 * is lost; without, the result ends it at once.
 */
export async function followCall(
  run: RunHandle,
  channel: CallChannel,
  options: FollowOptions,
): Promise<CallToolResult> {
  const ended = new AbortController();
  const result = options.message ? options.message.result() : run.result();
  result.catch(() => undefined); // read below, unless the call ends waiting for approval
  let seen = (options.fromOffset ?? 0) - 1;
  let end = Infinity;
  if (!channel.progress) {
    // Without progress to send, the result ends the call at once: the stream only watches for approvals, and
    // starts after a moment, so a quick run costs no reader of its events.
    void result.then(
      () => ended.abort(),
      () => ended.abort(),
    );
    const settled = result.then(
      () => true,
      () => true,
    );
    if (await Promise.race([settled, delay(APPROVAL_WATCH_AFTER_MS).then(() => false)]))
      return result.then(
        (done) => callResult(run.workflowId, done, options.structured),
        (error: unknown) => failedResult(run.workflowId, error),
      );
  }
  if (options.message) {
    const endOffset = options.message.endOffset;
    void result
      .then(endOffset, () => -Infinity)
      .then(
        (next) => {
          end = next - 1;
          if (seen >= end) ended.abort();
        },
        () => ended.abort(), // the session cannot say where it stands: the result is what is left to give
      );
  }
  try {
    const stream = new RunEventStream(run.client, run.workflowId, () => result, {
      signal: AbortSignal.any([channel.signal, ended.signal]),
      fromOffset: options.fromOffset ?? 0,
    });
    for await (const event of stream) {
      const message = channel.progress && progressMessage(event);
      if (message) await channel.progress!(message);
      if (event.type === "approval" && event.outcome === "requested") {
        const waiting = await decide(run, event, channel);
        if (waiting) return waiting;
      }
      if (event.type !== "text.delta" && event.type !== "reasoning.delta" && !event.workflowId) seen = event.offset;
      if (seen >= end) break;
    }
    return callResult(run.workflowId, await result, options.structured);
  } catch (error) {
    if (channel.signal.aborted) throw error;
    return failedResult(run.workflowId, error);
  }
}
