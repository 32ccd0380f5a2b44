import type { AgentDefinition } from "../agent/agent-definition.js";
import type { ApprovalOptions } from "../approvals/approval-options.js";
import type { LoadedDataConverter } from "@temporalio/common";
import type { AnswerPublisher, DeltaTransport } from "../deltas/index.js";
import { DuplicateAgentError, UnknownAgentError } from "../errors.js";
import { toFailure } from "../core/typed-failures.js";

/** Worker-wide switches the workflow learns through `agent.describe`. */
export interface WorkerFeatures {
  /** Set the durable-agent search attributes (registered on the server). */
  searchAttributes?: boolean;
  /** Who may decide on calls that wait for approval. */
  approvals?: ApprovalOptions;
  /** Where streamed answers' deltas go besides the heartbeats, with the worker's data converter to encode them. */
  deltas?: { transport: DeltaTransport; converter: LoadedDataConverter };
  /** The bytes of conversations the worker keeps (default `DEFAULT_CONVERSATION_CACHE_BYTES`). */
  conversationCacheBytes?: number;
  /** How a model call streams its answer's text (the streaming wing's answer heartbeat); without it, text comes whole at `model.answered`. */
  answerStream?: StartAnswerStream;
}

/** A trip's answer as the model call produces it: text added as it comes, closed once complete (or failed). */
export interface AnswerStream {
  add(text: string): void;
  /** Reasoning added as it comes (before the answer's text). */
  addReasoning(text: string): void;
  close(): Promise<void>;
}

/** Starts streaming a trip's answer: heartbeats, and the delta transport's `publisher` if any. */
export type StartAnswerStream = (trip: number, attempt: number, publisher?: AnswerPublisher) => Promise<AnswerStream>;

/** The agents a worker serves, by name. */
export type AgentRegistry = ReadonlyMap<string, AgentDefinition>;

/** Builds the registry; two agents with one name is an error. */
export function createRegistry(agents: AgentDefinition[]): AgentRegistry {
  const registry = new Map<string, AgentDefinition>();
  for (const agent of agents) {
    if (registry.has(agent.name)) throw new DuplicateAgentError(agent.name);
    registry.set(agent.name, agent);
  }
  return registry;
}

/** The agent of that name, or a non-retryable `UnknownAgentError` failure that lists the registered ones. */
export function lookupAgent(registry: AgentRegistry, name: string): AgentDefinition {
  const agent = registry.get(name);
  if (!agent) throw toFailure(new UnknownAgentError(name, [...registry.keys()]));
  return agent;
}
