/** Handoffs: `handoffs: [billing, support]` adds one `transfer_to_<name>` tool per agent; a call hands the run to it. */
import { z } from "zod";
import type { Message } from "../core/types.js";
import { AgentOptionsError } from "../errors.js";
import { defineTool, type Tool } from "./define-tool.js";
import { defined } from "../core/defined.js";

/** An agent to hand the run to, with options. */
export interface HandoffOptions<A extends { readonly name: string } = { readonly name: string }> {
  agent: A;
  /** What the model reads about the agent; default "Hand the conversation to the <name> agent.". */
  description?: string;
  /**
   * Trims the conversation the next agent sees (runs on the worker): it gets the conversation up to,
   * not including, the answer that handed off, and returns the messages the next agent starts from.
   * The handoff call stays in `toolCalls` and the trace. Default: the whole conversation.
   */
  inputFilter?: (messages: Message[]) => Message[] | Promise<Message[]>;
}

/** An entry of `handoffs`: an agent, or `{ agent, description?, inputFilter? }`. */
export type Handoff<A extends { readonly name: string } = { readonly name: string }> = A | HandoffOptions<A>;

/** The name of the tool that hands the run to `agent`. */
export function handoffToolName(agent: string): string {
  return `transfer_to_${agent.replace(/[^a-zA-Z0-9_-]/g, "_")}`.slice(0, 64);
}

/** The `transfer_to_<name>` tools for an agent's `handoffs`. */
export function handoffTools(handoffs: readonly Handoff[] | undefined): Tool[] {
  if (handoffs === undefined) return [];
  if (!Array.isArray(handoffs))
    throw new AgentOptionsError("handoffs", "must be an array of agents or { agent, inputFilter? }");
  return handoffs.map((entry, i) => {
    const options: HandoffOptions = isOptions(entry) ? entry : { agent: entry };
    if (!options.agent || typeof options.agent.name !== "string")
      throw new AgentOptionsError(`handoffs[${i}]`, "must be an agent from ai.agent() or { agent, inputFilter? }");
    if (options.inputFilter !== undefined && typeof options.inputFilter !== "function")
      throw new AgentOptionsError(`handoffs[${i}].inputFilter`, "must be a function (messages) => messages");
    const tool = defineTool({
      name: handoffToolName(options.agent.name),
      description: options.description ?? `Hand the conversation to the ${options.agent.name} agent.`,
      input: z.object({}),
      execute: () => {
        throw new Error(
          `"${handoffToolName(options.agent.name)}" hands the run over; it is not executed as an activity`,
        );
      },
    });
    return { ...tool, handoff: { agent: options.agent, ...defined({ inputFilter: options.inputFilter }) } };
  });
}

function isOptions(entry: Handoff): entry is HandoffOptions {
  return (
    typeof entry === "object" &&
    entry !== null &&
    "agent" in entry &&
    typeof (entry as HandoffOptions).agent === "object"
  );
}
