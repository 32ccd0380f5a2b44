/** Each agent as an MCP tool: its name, its description, `{ message: string }` as input, its output schema when it has one. */
import { z } from "zod";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AgentDefinition } from "../agent/agent-definition.js";
import { outputJsonSchema } from "../models/structured-output.js";

/** A call's arguments: the message to the agent. */
export const toolInput = z.object({ message: z.string().trim().min(1, "must be a non-empty string") }).strict();

/** The input schema every agent's tool declares. */
const INPUT_SCHEMA = {
  type: "object" as const,
  properties: { message: { type: "string", description: "The message to the agent." } },
  required: ["message"],
  additionalProperties: false,
};

/** The agent's output as MCP's `outputSchema`: only an object schema can be one (MCP's rule), so other outputs go as text alone. */
export function outputSchemaOf(agent: AgentDefinition): (Record<string, unknown> & { type: "object" }) | undefined {
  if (!agent.options.output) return undefined;
  const schema = outputJsonSchema(agent.options.output);
  return schema.type === "object" ? (schema as Record<string, unknown> & { type: "object" }) : undefined;
}

/** The tool an agent is, for `tools/list`. Calls may be tasks, except in sessions (one conversation, not a task per call). */
export function agentTool(agent: AgentDefinition, sessions: boolean): Tool {
  const outputSchema = outputSchemaOf(agent);
  return {
    name: agent.name,
    description: agent.options.description ?? `Runs the agent "${agent.name}" durably and answers with its reply.`,
    inputSchema: INPUT_SCHEMA,
    ...(outputSchema ? { outputSchema } : {}),
    execution: { taskSupport: sessions ? "forbidden" : "optional" },
  };
}
