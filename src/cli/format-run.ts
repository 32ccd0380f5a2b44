/** How the CLI prints a run: its live events (`run`) and its trace (`run`, `trace`). */
import type { StreamedRunEvent } from "../core/run-events.js";
import type { RunResult, TraceEvent } from "../core/types.js";

const quote = (text: string, max = 160) => JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);

/** One trace event as a line: `trip 2  tool update_plan: ok`. */
export function formatTraceEvent(event: TraceEvent): string {
  const detail = ((): string => {
    switch (event.type) {
      case "model.answered": {
        const tokens = event.usage ? ` [${event.usage.totalTokens} tokens]` : "";
        return (
          (event.toolCalls.length > 0
            ? `model asked for ${event.toolCalls.join(", ")}${event.text ? ` and said ${quote(event.text)}` : ""}`
            : `model answered ${quote(event.text ?? "")}`) + tokens
        );
      }
      case "budget.used-up":
        return `budget used up: ${event.used}`;
      case "tool.finished":
        return `tool ${toolLine(event)}`;
      case "reprompt":
        return `re-prompt (${event.kind}${event.source ? `, ${event.source}` : ""}): ${quote(event.text)}`;
      case "reprompt.withheld":
        return `re-prompt withheld (${event.kind}): ${event.detail}`;
      case "backstop":
        return `backstop ${event.name} (${event.phase}): ${event.outcome}${event.replayed ? " (replayed)" : ""}${event.detail ? ` (${event.detail})` : ""}`;
      case "callback.error":
        return `callback error in ${event.source}: ${event.error}`;
      case "approval":
        return (
          `approval ${event.tool} (${event.callId}): ` +
          `${event.outcome}${event.by !== undefined ? ` by ${event.by}` : ""}${event.reason ? ` (${event.reason})` : ""}`
        );
      case "run.stopped":
        return `run stopped: ${event.stopReason} (${event.detail})`;
      case "subagent.started":
        return `sub-agent ${event.agent} started (${event.tool}, ${event.workflowId})`;
      case "subagent.finished":
        return `sub-agent ${event.agent} finished: ${event.stopReason}${event.usage ? ` [${event.usage.totalTokens} tokens]` : ""}`;
      case "handoff":
        return `handoff: ${event.from} → ${event.to}`;
      case "remote.started":
        return `tool ${event.tool} (${event.callId}) → ${event.target} ${event.name} on task queue ${event.taskQueue}`;
      case "fork":
        return `forked from ${event.from.workflowId} at trip ${event.from.atTrip} (agent ${event.agent}); earlier trips are the recording's`;
      default:
        return JSON.stringify(event);
    }
  })();
  return `trip ${String((event as { trip?: number }).trip ?? "-").padEnd(3)} ${detail}`;
}

/** The whole trace, a line per event; a sub-agent's trace indented under the entry of its run. */
export function formatTrace(trace: TraceEvent[], indent = ""): string[] {
  if (trace.length === 0) return indent ? [] : ["(the trace is empty)"];
  return trace.flatMap((event) => {
    const nested =
      (event.type === "subagent.finished" || event.type === "subagent.started") && event.trace
        ? formatTrace(event.trace, `${indent}    `)
        : [];
    return [`${indent}${formatTraceEvent(event)}`, ...nested];
  });
}

/** One line summing up a finished run. */
export function formatOutcome(result: RunResult): string {
  const tokens = result.usage
    ? `, ${result.usage.totalTokens} tokens${result.usage.costUsd !== undefined ? ` ($${result.usage.costUsd})` : ""}`
    : "";
  return `stopped: ${result.stopReason} after ${result.trips} trip(s), ${result.toolCalls.length} tool call(s)${tokens}`;
}

/** Where the renderer writes: whole lines, and text without a line break (answer text as it streams). */
export interface RenderTarget {
  line(text: string): void;
  write(text: string): void;
}

/**
 * Prints a run's events as they arrive: answer text as it streams, tool calls as they start and
 * finish, retries, re-prompts and backstops; `run.finished` sums the run up.
 */
export class RunEventRenderer {
  #midLine = false;

  constructor(private readonly out: RenderTarget) {}

  /** Prints one event. */
  render(event: StreamedRunEvent): void {
    // A sub-agent's events (merged into the stream) get its agent path; its answer text shows in its trace entry.
    if (event.workflowId !== undefined) {
      if (
        event.type !== "text.delta" &&
        event.type !== "reasoning.delta" &&
        event.type !== "model.answered" &&
        event.type !== "run.stopped"
      )
        this.line(
          `[${(event.agents ?? []).join(" › ")}] ${formatTraceEvent(event as TraceEvent).replace(/^trip \S+\s+/, "")}`,
        );
      return;
    }
    switch (event.type) {
      case "text.delta":
        this.out.write(event.text);
        this.#midLine = !event.text.endsWith("\n");
        return;
      case "reasoning.delta":
        return; // the answer's text only: its reasoning is in the run's messages
      case "trip.started":
        return this.line(`── trip ${event.trip} ──`);
      case "trip.retry":
        return this.line(
          `(the model call of trip ${event.trip} is retried, attempt ${event.attempt}: text above from the failed attempt is dropped)`,
        );
      case "tool.started":
        return this.line(`→ tool ${event.tool} (${event.callId})`);
      case "model.answered":
        return this.endLine();
      case "tool.finished":
        return this.line(`← tool ${toolLine(event)}`);
      case "reprompt":
        return this.line(`↻ re-prompt (${event.kind}): ${quote(event.text)}`);
      case "reprompt.withheld":
        return this.line(`↻ re-prompt withheld (${event.kind}): ${event.detail}`);
      case "backstop":
        return this.line(`◆ backstop ${event.name} (${event.phase}): ${event.outcome}`);
      case "callback.error":
        return this.line(`! callback error in ${event.source}: ${event.error}`);
      case "run.stopped":
        return this.endLine();
      case "run.finished":
        return this.line(`■ ${formatOutcome(event.result)}`);
      case "fork":
        return this.line(`⑂ ${formatTraceEvent(event).replace(/^trip \S+\s+/, "")}`);
      case "approval":
        return this.line(`⏸ ${formatTraceEvent(event).replace(/^trip \S+\s+/, "")}`);
      default:
        return this.line(JSON.stringify(event));
    }
  }

  /** Ends a line of streamed text, if one is open. */
  endLine(): void {
    if (this.#midLine) this.out.line("");
    this.#midLine = false;
  }

  private line(text: string): void {
    this.endLine();
    this.out.line(text);
  }
}

/** A finished tool call: its name (and who ran it, when the provider did), status, and why. */
function toolLine(event: Extract<TraceEvent, { type: "tool.finished" }>): string {
  const who = event.provider ? " (run by the provider)" : "";
  return `${event.tool}${who}: ${event.status}${event.reason ? ` (${event.reason})` : ""}${event.error ? ` (${event.error})` : ""}`;
}
