/**
 * Sub-agents' runs in the UI message stream: one `data-subagent` part per sub-agent run (id
 * `subagent-<key>`, the key being its workflow id relative to the root's), holding the whole of
 * its answer so far (text, tool calls, re-prompts) and sent again, whole, after each of its
 * events, so a UI renders it nested under the tool call that started it. A run a sub-agent starts
 * gets a part of its own, naming its caller's part as `parent`.
 */
import type { Client } from "@temporalio/client";
import type { UIMessageChunk } from "ai";
import type { StreamedRunEvent } from "../../core/run-events.js";
import { sourceKey } from "../../core/stream-cursor.js";
import type { SubAgentData, SubAgentPart } from "./data-parts.js";
import type { MappedChunk } from "./mapped-chunk.js";
import { RunConversation } from "./run-conversation.js";

type ToolPart = Extract<SubAgentPart, { type: "tool" }>;

/** The `data-subagent` parts of one answer. */
export class SubAgentParts {
  readonly #runs = new Map<string, SubAgentData>();
  readonly #conversations = new Map<string, RunConversation>();

  constructor(
    private readonly client: Client,
    private readonly root: string,
  ) {}

  /** The chunk for an event about a sub-agent run (its start and end, in its caller's stream), or of one (`source` its key). */
  async update(event: StreamedRunEvent, source: string): Promise<MappedChunk[]> {
    if (event.type === "subagent.started" || event.type === "subagent.finished") {
      const key = sourceKey(this.root, event.workflowId);
      const run = this.run(key, event.agents ? [...event.agents, event.agent] : [event.agent]);
      Object.assign(run, { agent: event.agent, tool: event.tool, callId: event.callId });
      if (source !== "") run.parent = partId(source);
      if (event.type === "subagent.finished") {
        run.status = event.stopReason;
        if (event.usage) run.usage = event.usage;
      }
      return [this.chunkOf(key)];
    }
    const run = this.run(source, event.agents ?? []);
    const chars = await this.apply(run, source, event);
    if (chars === false) return [];
    return [{ ...this.chunkOf(source), ...(chars > 0 ? { chars } : {}) }];
  }

  /** Applies a sub-agent's own event to its part; the answer characters it added, or false when it changes nothing shown. */
  private async apply(run: SubAgentData, key: string, event: StreamedRunEvent): Promise<number | false> {
    const { parts } = run;
    switch (event.type) {
      case "text.delta": {
        const last = parts.at(-1);
        if (last?.type === "text" && last.trip === event.trip) last.text += event.text;
        else parts.push({ type: "text", trip: event.trip, text: event.text });
        return event.text.length;
      }
      case "trip.retry":
        run.parts = parts.filter((p) => !(p.type === "text" && p.trip === event.trip));
        run.parts.push({ type: "retry", trip: event.trip, attempt: event.attempt });
        return 0;
      case "tool.started":
        this.tool(run, event.callId, event.tool).input = await this.conversation(key).toolInput(event.callId);
        return 0;
      case "approval": {
        const part = this.tool(run, event.callId, event.tool);
        if (event.input !== undefined) part.input = event.input;
        if (event.outcome === "requested") part.state = "approval-requested";
        else if (event.outcome !== "approved") part.state = "output-denied";
        else part.state = "input-available";
        return 0;
      }
      case "tool.finished": {
        const part = this.tool(run, event.callId, event.tool);
        // A call the provider ran has its input and result in its answer.
        const provided = event.provider ? await this.conversation(key).providerCall(event.callId) : undefined;
        if (part.input === undefined)
          part.input = event.provider ? provided?.input : await this.conversation(key).toolInput(event.callId);
        if (event.status === "ok") {
          part.state = "output-available";
          part.output = event.provider ? provided?.output : await this.conversation(key).toolResult(event.callId);
        } else if (part.state !== "output-denied") {
          part.state = "output-error";
          part.errorText = event.status === "failed" ? (event.error ?? "the tool failed") : `refused: ${event.reason}`;
        }
        return 0;
      }
      case "reprompt":
        parts.push({ type: "reprompt", trip: event.trip, kind: event.kind, text: event.text });
        return 0;
      case "run.stopped":
        run.status = event.stopReason;
        return 0;
      default:
        return false;
    }
  }

  private run(key: string, agents: string[]): SubAgentData {
    let run = this.#runs.get(key);
    if (!run) {
      // A run first seen by its own events (the stream started after it did): named from its key and agent path.
      const segments = key.split("/");
      run = {
        agent: agents.at(-1) ?? "",
        agents,
        callId: segments.at(-1) ?? key,
        tool: "",
        workflowId: `${this.root}/${key}`,
        status: "running",
        parts: [],
      };
      this.#runs.set(key, run);
    }
    if (agents.length > 0) run.agents = agents;
    return run;
  }

  private tool(run: SubAgentData, toolCallId: string, toolName: string): ToolPart {
    let part = run.parts.find((p): p is ToolPart => p.type === "tool" && p.toolCallId === toolCallId);
    if (!part) {
      part = { type: "tool", toolCallId, toolName, state: "input-available" };
      run.parts.push(part);
    }
    return part;
  }

  private conversation(key: string): RunConversation {
    let conversation = this.#conversations.get(key);
    if (!conversation) {
      conversation = new RunConversation(this.client, `${this.root}/${key}`);
      this.#conversations.set(key, conversation);
    }
    return conversation;
  }

  private chunkOf(key: string): MappedChunk {
    // A copy: the part is sent whole each time, and later events must not change what was sent.
    const data = structuredClone(this.#runs.get(key)!);
    return { chunk: { type: "data-subagent", id: partId(key), data } as UIMessageChunk };
  }
}

/** The id of a sub-agent run's `data-subagent` part. */
const partId = (key: string) => `subagent-${key}`;
