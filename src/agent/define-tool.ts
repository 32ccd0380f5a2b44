import type { Duration } from "@temporalio/common";
import { z } from "zod";
import { durationMs, durationProblem } from "../duration.js";
import { AgentOptionsError } from "../errors.js";
import { checkKnownKeys, type KnownKeys } from "../options/known-keys.js";
import type { Message } from "../core/types.js";
import type { RemoteToolTarget } from "../core/remote-tool.js";
import type { SeenWorkingMemory } from "../core/memory.js";
import type { ProviderToolLink } from "../models/provider-tool-link.js";

export type { ProviderToolLink } from "../models/provider-tool-link.js";

/** What a tool's `execute` receives besides its input. `Context` types `context` (annotate `ctx: ToolContext<MyContext>`). */
export interface ToolContext<Context = unknown> {
  /** The run's context (`run(input, { context })`); undefined when the run has none. */
  context: Context;
  /** The workflow id of the run. */
  workflowId: string;
  /** The Temporal run id of the run. */
  runId: string;
  /** The id the model gave this call. */
  toolCallId: string;
  /** The trip whose answer asked for this call. */
  trip: number;
  /** The activity attempt, from 1; above 1 after a retry or a worker crash. */
  attempt: number;
  /** A stable key for this call, the same on every attempt: use it to make side effects exactly-once. */
  idempotencyKey: string;
  /** Aborted when the run is cancelled or the call times out. */
  signal: AbortSignal;
  /** Tells Temporal the call is alive (for long calls with a heartbeat timeout). */
  heartbeat(details?: unknown): void;
  /** The run's user (`run(input, { user })`, a session's `user`), whose memory it is; undefined when the run has none. */
  user?: string;
  /** For the built-in `update_working_memory` tool: the working memory as the model saw it this turn. */
  workingMemorySeen?: SeenWorkingMemory;
}

/** Options of `ai.tool()`. */
export interface ToolOptions<Schema extends z.ZodType, Output, Context = unknown> {
  /** The name the model calls the tool by: letters, digits, `_` and `-`, at most 64. */
  name: string;
  /** Tells the model what the tool does and when to call it. */
  description?: string;
  /** A zod (v4) schema; input is validated with it before `execute`, and the JSON schema sent to the model is derived from it. */
  input: Schema;
  /** Runs the tool on the worker, as a Temporal activity. Its result goes back to the model as JSON. */
  execute: (input: z.output<Schema>, context: ToolContext<Context>) => Promise<Output> | Output;
  /**
   * Pause the run before executing until a person approves the call (`handle.approve(callId)`)
   * or rejects it (`handle.reject(callId, reason)`, which reaches the model as a refusal).
   * `true`, or a function of the validated input. Default false.
   */
  needsApproval?: boolean | ((input: z.output<Schema>) => boolean | Promise<boolean>);
  /** How long a call waits for approval before it is refused, e.g. `"2 hours"` or a number of milliseconds; default: as long as it takes. */
  approvalTimeout?: Duration;
  /**
   * `"activity"` (default): each call is an activity. `"local"`: a local activity, for fast,
   * idempotent tools: no task queue round trip and fewer history events, but a worker crash runs
   * again every local call since the last completed workflow task (see docs/agents-and-tools.md, Local activities for fast calls).
   */
  execution?: Execution;
}

/** Where a call runs: a Temporal activity, or a local activity on the worker running the workflow task. */
export type Execution = "activity" | "local";

/** The keys of `ToolOptions`, checked by `ai.tool()`: a new option goes here too (the typecheck insists). */
export const TOOL_OPTION_KEYS = {
  name: true,
  description: true,
  input: true,
  execute: true,
  needsApproval: true,
  approvalTimeout: true,
  execution: true,
} as const satisfies Record<keyof ToolOptions<z.ZodType, unknown>, true> & KnownKeys;

/** A tool an agent may call. Create with `ai.tool()`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a tool of any input fits where tools are listed (Input is contravariant)
export interface Tool<Input = any, Output = unknown> {
  readonly name: string;
  readonly description: string | undefined;
  readonly input: z.ZodType<Input>;
  /** The JSON schema the model sees, derived from `input`. */
  readonly jsonSchema: Record<string, unknown>;
  /** Runs the tool on the worker; its result goes back to the model as JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each run's context is the agent's, typed where the tool is defined
  readonly execute: (input: Input, context: ToolContext<any>) => Promise<Output> | Output;
  /** Whether a call needs a person's approval before it runs. */
  readonly needsApproval: boolean | ((input: Input) => boolean | Promise<boolean>);
  /** How long a call waits for approval, as given to `ai.tool()`; undefined: no limit. */
  readonly approvalTimeout?: Duration | undefined;
  /**
   * How long a call waits for approval, in milliseconds; undefined: no limit.
   * @deprecated Read `approvalTimeout`, a `Duration` like every other duration of the API.
   */
  readonly approvalTimeoutMs: number | undefined;
  /** Where each call runs. */
  readonly execution: Execution;
  /** Set on tools from `agent.asTool()`: a call runs that agent as a child workflow of the run. */
  readonly subAgent?: SubAgentLink<Input>;
  /** Set on the `transfer_to_<name>` tools of `handoffs`: a call hands the run to that agent. */
  readonly handoff?: HandoffLink;
  /** Set on `ai.activityTool()` and `ai.workflowTool()`: the run calls this activity or workflow by name on its task queue. */
  readonly remote?: RemoteToolTarget;
  /** Set on a provider-defined tool of the AI SDK (`anthropic.tools.webSearch_20250305()`): the provider runs it. */
  readonly providerTool?: ProviderToolLink;
}

/** What a sub-agent tool knows of its agent: the agent (registered on workers with the caller) and how input becomes its message. */
export interface SubAgentLink<Input = unknown> {
  readonly agent: { readonly name: string };
  /** Turns the call's input into the sub-agent's message (on the worker). */
  readonly toMessage: (input: Input) => string | Promise<string>;
}

/** What a handoff tool knows of the agent it hands the run to. */
export interface HandoffLink {
  readonly agent: { readonly name: string };
  /** Trims the conversation the next agent sees; gets it up to (not including) the answer that handed off. */
  readonly inputFilter?: (messages: Message[]) => Message[] | Promise<Message[]>;
}

/**
 * How long a call of the tool waits for approval, in milliseconds: from `approvalTimeout`, else
 * from a tool made with only the deprecated `approvalTimeoutMs`.
 */
export function approvalTimeoutMsOf(tool: Tool): number | undefined {
  return tool.approvalTimeout !== undefined ? durationMs(tool.approvalTimeout) : tool.approvalTimeoutMs;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function isZodSchema(value: unknown): value is z.ZodType {
  return (
    typeof value === "object" &&
    value !== null &&
    "_zod" in value &&
    typeof (value as z.ZodType).safeParse === "function"
  );
}

/** Defines a tool: a name, a zod input schema and an `execute` function run as an activity. */
export function defineTool<Schema extends z.ZodType, Output, Context = unknown>(
  options: ToolOptions<Schema, Output, Context>,
): Tool<z.output<Schema>, Output> {
  if (!options || typeof options !== "object")
    throw new AgentOptionsError("options", "ai.tool() needs an options object { name, input, execute }");
  checkKnownKeys(
    options,
    TOOL_OPTION_KEYS,
    typeof options.name === "string" ? `ai.tool() "${options.name}"` : "ai.tool()",
  );
  if (typeof options?.name !== "string" || !TOOL_NAME.test(options.name)) {
    throw new AgentOptionsError(
      "name",
      `tool names are 1-64 letters, digits, "_" or "-" (got ${JSON.stringify(options?.name)})`,
    );
  }
  if (!isZodSchema(options.input)) {
    throw new AgentOptionsError("input", `tool "${options.name}" needs a zod (v4) schema, e.g. z.object({ ... })`);
  }
  if (
    options.needsApproval !== undefined &&
    typeof options.needsApproval !== "boolean" &&
    typeof options.needsApproval !== "function"
  ) {
    throw new AgentOptionsError(
      "needsApproval",
      `tool "${options.name}": needsApproval is true, false or (input) => boolean`,
    );
  }
  if (options.execution !== undefined && options.execution !== "activity" && options.execution !== "local") {
    throw new AgentOptionsError(
      "execution",
      `tool "${options.name}": execution is "activity" or "local" (got ${JSON.stringify(options.execution)})`,
    );
  }
  if (options.approvalTimeout !== undefined && durationMs(options.approvalTimeout) === undefined) {
    throw new AgentOptionsError(
      "approvalTimeout",
      `tool "${options.name}": ${durationProblem(options.approvalTimeout)}`,
    );
  }
  if (typeof options.execute !== "function") {
    throw new AgentOptionsError("execute", `tool "${options.name}" needs an execute(input, context) function`);
  }
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(options.input, {
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return {
    name: options.name,
    description: options.description,
    input: options.input as z.ZodType<z.output<Schema>>,
    jsonSchema,
    execute: options.execute as Tool<z.output<Schema>, Output>["execute"],
    needsApproval: options.needsApproval ?? false,
    approvalTimeout: options.approvalTimeout,
    approvalTimeoutMs: durationMs(options.approvalTimeout),
    execution: options.execution ?? "activity",
  };
}
