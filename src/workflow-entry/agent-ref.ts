/** An agent named from a workflow, with the types of its output and context, without its module. Workflow-safe. */

/** An agent by name, typed: `agentRef<Plan, { userId: string }>("coach")`. Only the name travels; the types are the caller's word. */
export interface AgentRef<Output = unknown, Context = unknown> {
  /** The agent's name, as its worker registers it (`ai.agent({ name })`). */
  readonly name: string;
  /** Types only (never set): the agent's typed `output`. */
  readonly __output?: Output;
  /** Types only (never set): the agent's run `context`. */
  readonly __context?: Context;
}

/**
 * An agent by name with the types of its `output` and `context`, for `runAgent` and `startAgent`
 * in a workflow: the workflow's bundle never imports the agent's module (which may import anything).
 */
export function agentRef<Output = unknown, Context = unknown>(name: string): AgentRef<Output, Context> {
  return { name };
}

/** An agent given to `runAgent`: its name, or an `agentRef`. */
export type AgentLike = string | AgentRef<unknown, unknown>;

/** The output type an `agent` argument stands for (`unknown` for a plain name). */
export type OutputOfAgent<A> = A extends AgentRef<infer Output, unknown> ? Output : unknown;

/** The context type an `agent` argument stands for (`unknown` for a plain name). */
export type ContextOfAgent<A> = A extends AgentRef<unknown, infer Context> ? Context : unknown;

/** The agent's name, whichever way it was given. */
export function agentName(agent: AgentLike): string {
  return typeof agent === "string" ? agent : agent.name;
}
