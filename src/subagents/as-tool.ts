/** `agent.asTool()`: an agent as another agent's tool, each call its own durable run (a child workflow). */
import type { Duration } from "@temporalio/common";
import { z } from "zod";
import { AgentOptionsError } from "../errors.js";
import { defineTool, type Tool } from "../agent/define-tool.js";
import { defined } from "../core/defined.js";

/** Options of `agent.asTool()`. */
export interface AsToolOptions<Schema extends z.ZodType = z.ZodType<{ message: string }>> {
  /** The tool's name; default the agent's name (with characters a tool name may not have replaced by "_"). */
  name?: string;
  /** Tells the calling model what the agent does; default "Ask the <name> agent. Send it the whole request as `message`.". */
  description?: string;
  /** The input the calling model sends; default `{ message: string }`. Pass `toMessage` for any other schema. */
  input?: Schema;
  /** Turns the validated input into the sub-agent's user message (runs on the worker); default `input.message`, else the input as JSON. */
  toMessage?: (input: z.output<Schema>) => string | Promise<string>;
  /** Pause each call for a person's approval before the sub-agent runs: `true`, or a function of the input. Default false. */
  needsApproval?: boolean | ((input: z.output<Schema>) => boolean | Promise<boolean>);
  /** How long a call waits for approval before it is refused; default: as long as it takes. */
  approvalTimeout?: Duration;
}

const DEFAULT_INPUT = z.object({
  message: z.string().describe("The request for the agent, with everything it needs to know"),
});

/** The tool whose calls run `agent` as a child workflow of the calling run; the child's answer is the tool's result. */
export function subAgentTool<Schema extends z.ZodType>(
  agent: { readonly name: string; readonly options?: { readonly description?: string } },
  options: AsToolOptions<Schema> = {},
): Tool<z.output<Schema>, unknown> {
  if (options.input !== undefined && options.toMessage !== undefined && typeof options.toMessage !== "function") {
    throw new AgentOptionsError("asTool.toMessage", `agent "${agent.name}": toMessage is a function (input) => string`);
  }
  const name = options.name ?? agent.name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  const base = defineTool({
    name,
    description:
      options.description ??
      agent.options?.description ??
      `Ask the ${agent.name} agent. Send it the whole request as \`message\`.`,
    input: (options.input ?? DEFAULT_INPUT) as Schema,
    ...defined({ needsApproval: options.needsApproval, approvalTimeout: options.approvalTimeout }),
    execute: () => {
      throw new Error(`"${name}" runs the ${agent.name} agent as a child workflow; it is not executed as an activity`);
    },
  });
  return { ...base, subAgent: { agent, toMessage: options.toMessage ?? defaultMessage } };
}

function defaultMessage(input: unknown): string {
  if (typeof input === "object" && input !== null && typeof (input as { message?: unknown }).message === "string")
    return (input as { message: string }).message;
  return typeof input === "string" ? input : JSON.stringify(input);
}
