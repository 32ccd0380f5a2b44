/** Multi-agent scripts: one scripted model server answers every agent of a tree, routed by the agent's instructions. */
import { ai, type AgentOptions } from "../../src/index.js";
import type { ScriptedRequest, ScriptedTurn, ScriptedUsage } from "../../src/testing/index.js";

/** The instructions every test agent gets: "You are <name>." — how the scripted model tells agents apart. */
export const instructionsOf = (name: string) => `You are ${name}.`;

/** The agent a request came from. */
export function agentOf(request: ScriptedRequest): string {
  const system = request.body.messages.find((m) => m.role === "system")?.content;
  return typeof system === "string" ? (/^You are ([\w.-]+)\.$/.exec(system)?.[1] ?? "?") : "?";
}

/** A handler answering each agent from its own script, in order (a function turn may hold the answer). */
export function byAgent(
  scripts: Record<string, Array<ScriptedTurn | ((request: ScriptedRequest) => ScriptedTurn | Promise<ScriptedTurn>)>>,
) {
  const next = new Map<string, number>();
  return (request: ScriptedRequest): ScriptedTurn | Promise<ScriptedTurn> => {
    const agent = agentOf(request);
    const index = next.get(agent) ?? 0;
    next.set(agent, index + 1);
    const turn = scripts[agent]?.[index];
    if (turn === undefined)
      return {
        status: 400,
        body: { error: { message: `no scripted turn ${index + 1} for agent ${agent}`, type: "invalid_request_error" } },
      };
    return typeof turn === "function" ? turn(request) : turn;
  };
}

/** Usage by agent: each agent's answers report `tokens[agent]` tokens (input 80%, output 20%). */
export function usageByAgent(tokens: Record<string, number>) {
  return (request: ScriptedRequest): ScriptedUsage | undefined => {
    const total = tokens[agentOf(request)];
    return total === undefined ? undefined : { prompt_tokens: total * 0.8, completion_tokens: total * 0.2 };
  };
}

/** An agent for these tests: its name, instructions naming it, the scripted model. */
export function testAgent(name: string, baseURL: string, options: Omit<AgentOptions, "model" | "name"> = {}) {
  return ai.agent({ name, instructions: instructionsOf(name), model: ai.openai("gpt-test", { baseURL }), ...options });
}

/** A call of a sub-agent tool. */
export const ask = (
  tool: string,
  message: string,
  id?: string,
): { name: string; arguments: { message: string }; id?: string } => ({
  name: tool,
  arguments: { message },
  ...(id ? { id } : {}),
});
