/**
 * One answer's run events as UI message chunks: a pure mapping, event by event, that reads what
 * the events do not carry (reasoning that did not stream live, tool inputs and outputs) from the
 * run's conversation. The stream around it (`ui-message-stream.ts`) gives it the events and
 * decides where to stop.
 */
import type { Client } from "@temporalio/client";
import type { FinishReason, UIMessageChunk } from "ai";
import type { StreamedRunEvent } from "../../core/run-events.js";
import type { Message, StopReason, TraceEvent } from "../../core/types.js";
import { addUsage, type RunUsage, type Usage } from "../../core/usage.js";
import type { DurableAgentUIDataTypes } from "./data-parts.js";
import { RunConversation } from "./run-conversation.js";
import type { MappedChunk } from "./mapped-chunk.js";
import { defined } from "../../core/defined.js";
import { reasoningText } from "../../core/run-state.js";
import { SubAgentParts } from "./subagent-parts.js";

/** The AI SDK's finish reason for how a run or a session's message stopped. */
export const FINISH_REASONS: Record<StopReason, FinishReason> = {
  answered: "stop",
  "max-trips": "length",
  budget: "length",
  "invalid-output": "other",
  cancelled: "interrupted",
  "timed-out": "interrupted",
};

type Chunks = MappedChunk[];
const data = <Name extends keyof DurableAgentUIDataTypes & string>(
  name: Name,
  id: string,
  value: DurableAgentUIDataTypes[Name],
): MappedChunk => ({ chunk: { type: `data-${name}`, id, data: value } as UIMessageChunk });

/** The chunks of one answer, event by event. */
export class ChunkMapper {
  #text: { id: string } | undefined;
  /** The reasoning streamed of the current trip's attempt: its part's id, and whether it is open. */
  #reasoning: { id: string; trip: number; open: boolean } | undefined;
  /** Answers read for `reasoningOf`, by trip, kept for their `model.answered`. */
  readonly #answers = new Map<number, Extract<Message, { role: "assistant" }> | undefined>();
  #step = false;
  #stepStarted = false;
  #usage: RunUsage | undefined;
  readonly #inputShown = new Set<string>();
  readonly #denied = new Set<string>();
  readonly #conversation: RunConversation;
  readonly #subAgents: SubAgentParts;
  /** Set once the answer has ended: no chunk follows. */
  ended = false;

  constructor(
    client: Client,
    private readonly root: string,
    fromMessage: number,
    /** With `endAtApproval`: whether a call still waits for approval (one asked for in a replay may have been decided since). */
    private readonly waits?: (callId: string) => Promise<boolean>,
  ) {
    this.#conversation = new RunConversation(client, root, fromMessage);
    this.#subAgents = new SubAgentParts(client, root);
  }

  /** The chunks for an event of the run (`source` ""), or of one of its sub-agents' runs (`source` its key). */
  async map(event: StreamedRunEvent, source: string): Promise<Chunks> {
    if (this.ended) return [];
    if (source !== "") return this.#subAgents.update(event, source);
    switch (event.type) {
      case "trip.started":
        return [...this.closeText(), ...this.closeReasoning(), ...this.closeStep(), ...this.openStep()];
      case "reasoning.delta":
        return this.reasoningDelta(event);
      case "text.delta": {
        const id = `text-${event.trip}-${event.attempt}`;
        const open =
          this.#text?.id === id
            ? []
            : [...this.closeText(), ...this.closeReasoning(), { chunk: { type: "text-start", id } as const }];
        this.#text = { id };
        return [...open, { chunk: { type: "text-delta", id, delta: event.text }, chars: event.text.length }];
      }
      case "trip.retry": {
        // The failed attempt's parts go (only within a step this stream opened: a reset with no step would clear the message).
        const reset: Chunks = this.#stepStarted && this.#step ? [{ chunk: { type: "reset-step" } }] : [];
        this.#text = undefined;
        this.#reasoning = undefined;
        const retry = { trip: event.trip, attempt: event.attempt };
        return [...reset, data("retry", `retry-${event.trip}-${event.attempt}`, retry)];
      }
      case "model.answered":
        return [...this.closeText(), ...(await this.reasoning(event.trip, event.text)), ...this.usage(event.usage)];
      case "tool.started":
        return this.toolInput(event.callId, event.tool);
      case "approval":
        return this.approval(event);
      case "tool.finished":
        return this.toolFinished(event);
      case "reprompt":
        return [
          ...this.closeText(),
          data("reprompt", `reprompt-${event.trip}`, {
            trip: event.trip,
            kind: event.kind,
            text: event.text,
            ...defined({ source: event.source }),
          }),
        ];
      case "reprompt.withheld":
        return [
          data("reprompt", `reprompt-withheld-${event.trip}-${event.kind}`, {
            trip: event.trip,
            kind: event.kind,
            withheld: true,
            detail: event.detail,
          }),
        ];
      case "backstop":
        return [data("backstop", `backstop-${event.name}-${event.phase}-${event.trip}`, stripStreamFields(event))];
      case "subagent.started":
      case "subagent.finished":
        return this.#subAgents.update(event, source);
      case "run.stopped":
        return [
          data("stopped", "stopped", { stopReason: event.stopReason, detail: event.detail }),
          ...this.end(FINISH_REASONS[event.stopReason]),
        ];
      case "run.finished":
        return this.end(FINISH_REASONS[event.result.stopReason] ?? "other");
      case "message.failed":
        return this.fail(event.error);
      default:
        return [data("trace", `trace-${event.offset}`, stripStreamFields(event))];
    }
  }

  /** The chunks that end the answer: open parts closed, then `finish`. */
  end(finishReason: FinishReason): Chunks {
    if (this.ended) return [];
    this.ended = true;
    return [
      ...this.closeText(),
      ...this.closeReasoning(),
      ...this.closeStep(),
      { chunk: { type: "finish", finishReason } },
    ];
  }

  /** The chunks that end a failed answer: its typed error's name and message, then `finish` ("error"). */
  fail(error: unknown): Chunks {
    if (this.ended) return [];
    const named = typeof error === "object" && error !== null && "name" in error && "message" in error;
    const errorText = named ? `${String(error.name)}: ${String(error.message)}` : String(error);
    return [
      ...this.closeText(),
      ...this.closeReasoning(),
      { chunk: { type: "error", errorText } },
      ...this.end("error"),
    ];
  }

  private closeText(): Chunks {
    if (!this.#text) return [];
    const { id } = this.#text;
    this.#text = undefined;
    return [{ chunk: { type: "text-end", id } }];
  }

  /** A live reasoning delta: into the attempt's reasoning part, opened at its first. */
  private reasoningDelta(event: Extract<StreamedRunEvent, { type: "reasoning.delta" }>): Chunks {
    const id = `reasoning-${event.trip}-${event.attempt}`;
    const open: Chunks = [];
    if (this.#reasoning?.id !== id) {
      open.push(...this.closeReasoning(), { chunk: { type: "reasoning-start", id } });
      this.#reasoning = { id, trip: event.trip, open: true };
    }
    return [...open, { chunk: { type: "reasoning-delta", id, delta: event.text }, chars: event.text.length }];
  }

  /** Ends the live reasoning part, if open. */
  private closeReasoning(): Chunks {
    if (!this.#reasoning?.open) return [];
    this.#reasoning.open = false;
    return [{ chunk: { type: "reasoning-end", id: this.#reasoning.id } }];
  }

  private openStep(): Chunks {
    this.#step = true;
    this.#stepStarted = true;
    return [{ chunk: { type: "start-step" } }];
  }

  private closeStep(): Chunks {
    if (!this.#step) return [];
    this.#step = false;
    return [{ chunk: { type: "finish-step" } }];
  }

  /**
   * The reasoning of trip `trip`'s answer (whose text is `text`), read from the conversation, for
   * the event stream to send before the answer's text when none of it streamed live (a replay of a
   * finished trip, a fast answer): the answer is kept for its `model.answered`.
   */
  async reasoningOf(trip: number, text: string | null): Promise<string> {
    const answer = await this.#conversation.answer(text);
    this.#answers.set(trip, answer);
    return reasoningText(answer);
  }

  /**
   * The answer's reasoning at its `model.answered`: the live part ended, or, when none streamed (a
   * run without `streamText`, whose text is whole in its durable events), each reasoning part whole,
   * read from the conversation (parts apart, with their ids; `model.answered` has them joined, and runs recorded before it none).
   */
  private async reasoning(trip: number, text: string | null): Promise<Chunks> {
    const answer = this.#answers.has(trip) ? this.#answers.get(trip) : await this.#conversation.answer(text);
    this.#answers.delete(trip);
    const streamed = this.#reasoning?.trip === trip;
    const end = this.closeReasoning();
    this.#reasoning = undefined;
    if (streamed) return end;
    return (answer?.reasoning ?? [])
      .filter((part) => part.text !== "")
      .flatMap((part, i): Chunks => {
        const id = `reasoning-${trip}-${i}`;
        return [
          { chunk: { type: "reasoning-start", id } },
          { chunk: { type: "reasoning-delta", id, delta: part.text } },
          { chunk: { type: "reasoning-end", id } },
        ];
      });
  }

  private usage(usage: Usage | undefined): Chunks {
    if (!usage) return [];
    this.#usage = addUsage(this.#usage, usage);
    return [data("usage", "usage", this.#usage)];
  }

  private async toolInput(callId: string, tool: string, input?: unknown): Promise<Chunks> {
    if (this.#inputShown.has(callId)) return [];
    this.#inputShown.add(callId);
    const read = input === undefined ? await this.#conversation.toolInput(callId) : input;
    return [{ chunk: { type: "tool-input-available", toolCallId: callId, toolName: tool, input: read } }];
  }

  private async approval(event: Extract<StreamedRunEvent, { type: "approval" }>): Promise<Chunks> {
    const { callId, outcome } = event;
    if (outcome === "requested") {
      const chunks: Chunks = [
        ...this.closeText(),
        ...(await this.toolInput(callId, event.tool, event.input)),
        { chunk: { type: "tool-approval-request", approvalId: callId, toolCallId: callId } },
      ];
      // useChat sends a decision only once the stream has ended: end it here, while the run waits.
      return this.waits && (await this.waits(callId)) ? [...chunks, ...this.end("tool-calls")] : chunks;
    }
    const approved = outcome === "approved";
    if (!approved) this.#denied.add(callId);
    const reason = event.reason ?? (outcome === "timed-out" ? "no decision in time" : undefined);
    return [
      {
        chunk: {
          type: "tool-approval-response",
          approvalId: callId,
          approved,
          ...(reason !== undefined && !approved ? { reason } : {}),
        },
      },
    ];
  }

  /** A call the provider ran while answering: its input and its result at once, marked `providerExecuted` (its part is not ours to run). */
  private async providerCall(event: Extract<StreamedRunEvent, { type: "tool.finished" }>): Promise<Chunks> {
    const { callId: toolCallId, tool: toolName } = event;
    if (this.#inputShown.has(toolCallId)) return [];
    this.#inputShown.add(toolCallId);
    const call = await this.#conversation.providerCall(toolCallId);
    const input = call?.input;
    const providerExecuted = true;
    const output: MappedChunk =
      event.status === "ok"
        ? { chunk: { type: "tool-output-available", toolCallId, output: call?.output, providerExecuted } }
        : {
            chunk: {
              type: "tool-output-error",
              toolCallId,
              errorText: event.error ?? "the provider's tool failed",
              providerExecuted,
            },
          };
    return [
      ...this.closeText(),
      { chunk: { type: "tool-input-available", toolCallId, toolName, input, providerExecuted } },
      output,
    ];
  }

  private async toolFinished(event: Extract<StreamedRunEvent, { type: "tool.finished" }>): Promise<Chunks> {
    const { callId } = event;
    if (event.provider) return this.providerCall(event);
    const input = await this.toolInput(callId, event.tool);
    if (event.status === "ok")
      return [
        ...input,
        {
          chunk: {
            type: "tool-output-available",
            toolCallId: callId,
            output: await this.#conversation.toolResult(callId),
          },
        },
      ];
    if (event.status === "refused" && this.#denied.has(callId))
      return [...input, { chunk: { type: "tool-output-denied", toolCallId: callId } }];
    const errorText =
      event.status === "failed" ? (event.error ?? "the tool failed") : `refused: ${event.reason ?? "no reason given"}`;
    return [...input, { chunk: { type: "tool-output-error", toolCallId: callId, errorText } }];
  }
}

/** A trace event without the fields the stream adds to it (a sub-agent event keeps its child's `workflowId`). */
function stripStreamFields<T extends TraceEvent>(event: T & { offset: number; id?: string; agents?: string[] }): T {
  const { offset: _offset, id: _id, agents: _agents, ...rest } = event;
  return rest as unknown as T;
}
