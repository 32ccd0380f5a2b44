/**
 * An agent's A2A card, as A2A 0.3 writes it (`url`, `preferredTransport`, `protocolVersion`) with
 * A2A 1.0's `supportedInterfaces` beside (a "superset" card, which the SDK's clients of either
 * version read): its name, description, version, streaming, and its skills: the agent itself
 * (its `description`) and each of its tools.
 */
import type { AgentSession, SessionOptions } from "../client/session.js";

/** The agent an A2A handler serves: any `ai.agent()`. */
export interface A2AAgent {
  /** The agent's name, as its worker serves it; the last segment of its path. */
  readonly name: string;
  /** Its definition's options: `description` goes on the card. */
  readonly options: { readonly description?: string | undefined };
  /** Its tools, each a skill on the card. */
  readonly tools: readonly { readonly name: string; readonly description: string | undefined }[];
  /** Its fingerprint, the card's `version`. */
  readonly version: string;
  /** A conversation: an A2A context is one. */
  session(id: string, options?: SessionOptions): AgentSession;
}

/** An A2A 0.3 skill. */
interface CardSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
}

/** The JSON an agent card is; `url` is the agent's JSON-RPC endpoint. */
export interface AgentCardJson {
  protocolVersion: string;
  name: string;
  description: string;
  url: string;
  preferredTransport: "JSONRPC";
  version: string;
  capabilities: { streaming: true; pushNotifications: false };
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: CardSkill[];
  supportedInterfaces: { url: string; protocolBinding: "JSONRPC"; protocolVersion: string; tenant: "" }[];
}

/** The card of `agent`, answering JSON-RPC at `url`. */
export function agentCard(agent: A2AAgent, url: string): AgentCardJson {
  const description = agent.options.description ?? `The ${agent.name} agent, a durable-agent run per task.`;
  const tools = agent.tools.map((tool) => ({
    id: `${agent.name}.${tool.name}`,
    name: tool.name,
    description: tool.description ?? `The ${tool.name} tool of ${agent.name}.`,
    tags: ["tool"],
  }));
  return {
    protocolVersion: "0.3.0",
    name: agent.name,
    description,
    url,
    preferredTransport: "JSONRPC",
    version: agent.version,
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: agent.name, name: agent.name, description, tags: ["agent"] }, ...tools],
    supportedInterfaces: ["1.0", "0.3"].map((protocolVersion) => ({
      url,
      protocolBinding: "JSONRPC",
      protocolVersion,
      tenant: "",
    })),
  };
}
