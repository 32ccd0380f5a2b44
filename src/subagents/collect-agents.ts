/** The agents a worker must serve: those it was given, and every agent reachable through their sub-agent tools and handoffs. */
import type { AgentDefinition } from "../agent/agent-definition.js";
import { DuplicateAgentError } from "../errors.js";

/** The given agents and, transitively, their sub-agents and handoff targets, each once; two different agents with one name is an error. */
export function withSubAgents(agents: readonly AgentDefinition[]): AgentDefinition[] {
  const byName = new Map<string, AgentDefinition>();
  const visit = (agent: AgentDefinition, given: boolean) => {
    const known = byName.get(agent.name);
    if (known === agent) return;
    if (known) throw new DuplicateAgentError(agent.name, given ? undefined : "a sub-agent or handoff target");
    byName.set(agent.name, agent);
    for (const tool of agent.tools) {
      const linked = tool.subAgent?.agent ?? tool.handoff?.agent;
      if (linked) visit(linked as AgentDefinition, false);
    }
  };
  const given = new Set<string>();
  for (const agent of agents) {
    if (given.has(agent.name)) throw new DuplicateAgentError(agent.name);
    given.add(agent.name);
    visit(agent, true);
  }
  return [...byName.values()];
}
