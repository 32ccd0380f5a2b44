import type { RunResult } from "../core/types.js";
import { startRun, type RunOptions } from "../client/start-run.js";
import type { RunHandle } from "../client/run-handle.js";
import { AgentSession, type SessionOptions } from "../client/session.js";
import type { RunEventStream, StreamOptions } from "../streaming/client/index.js";
import type { RunInput } from "../client/normalize-input.js";
import type { EvalCase } from "../datasets/eval-case.js";
import type { EvalReport } from "../eval/report.js";
import type { EvalOptions } from "../eval/run-eval.js";
import { AgentOptionsError } from "../errors.js";
import { McpToolset } from "../mcp/mcp-toolset.js";
import type { Tool } from "../agent/define-tool.js";
import { subAgentTool, type AsToolOptions } from "../subagents/as-tool.js";
import { handoffTools } from "../agent/handoff-tools.js";
import { listTools } from "../agent/ai-sdk-tools.js";
import type { AgentOptions } from "../agent/options.js";
import type { AgentDefinition } from "../agent/agent-definition.js";
import type { z } from "zod";
import { agentName, maxTripsOf, validateAgentOptions } from "../agent/validate-options.js";
import { agentVersionOf } from "../agent/agent-version.js";
import { memoryTools } from "./memory-tool.js";
import { runUser } from "../client/run-user.js";
import { createAgentSchedule, type AgentSchedule, type AgentScheduleOptions } from "../schedules/index.js";

/** The type of `result.output` for an agent's options: `z.output` of its `output` schema, else unknown. */
export type OutputOf<O> = O extends { output: infer S extends z.ZodType } ? z.output<S> : unknown;
/** The type of a run's `context` for an agent's options: `z.input` of its `contextSchema`, else unknown. */
export type ContextOf<O> = O extends { contextSchema: infer S extends z.ZodType } ? z.input<S> : unknown;

/** An agent: its definition (used by workers) and the client-side calls that run it. Create with `ai.agent()`. `Output` types `result.output`. */
export class Agent<Output = unknown, Context = unknown> implements AgentDefinition {
  /** How workers find this agent. */
  readonly name: string;
  /** Model calls per run. */
  readonly maxTrips: number;
  /** The options it was defined with. */
  readonly options: Readonly<AgentOptions>;
  readonly #tools: Map<string, Tool>;
  readonly #mcpToolsets: McpToolset[];
  #version: string | undefined;

  constructor(options: AgentOptions) {
    validateAgentOptions(options);
    this.options = options;
    this.name = agentName(options);
    this.maxTrips = maxTripsOf(options);
    const tools = [...listTools(options.tools), ...handoffTools(options.handoffs), ...memoryTools(options.memory)];
    this.#tools = new Map(
      tools.filter((tool): tool is Tool => !(tool instanceof McpToolset)).map((tool) => [tool.name, tool]),
    );
    this.#mcpToolsets = tools.filter((tool): tool is McpToolset => tool instanceof McpToolset);
  }

  /**
   * This agent as a tool for another agent: each call runs it as a child workflow of the calling
   * run (its own trips, contract, trace and history), and its answer is the tool's result. Workers
   * serving the caller serve this agent too.
   */
  asTool<Schema extends z.ZodType = z.ZodType<{ message: string }>>(
    options?: AsToolOptions<Schema>,
  ): Tool<z.output<Schema>, unknown> {
    return subAgentTool(this, options);
  }

  /**
   * A stable fingerprint of the definition (instructions, model id and settings, tools' names,
   * descriptions and schemas, MCP toolsets' names, contract options, output schema, handoffs and
   * sub-agents by their versions), the same on every machine; or `options.version` when given.
   * Every run records the version that served it (`result.agentVersion`).
   */
  get version(): string {
    this.#version ??= versionWithin(this, new Set());
    return this.#version;
  }

  /** The agent's `ai.tool()` tools, its handoffs' `transfer_to_<name>` tools included. */
  get tools(): Tool[] {
    return [...this.#tools.values()];
  }

  /** The agent's MCP toolsets (`ai.mcp()`); their tools are listed once per run. */
  get mcpToolsets(): readonly McpToolset[] {
    return this.#mcpToolsets;
  }

  /** The tool of that name, if the agent has it. */
  tool(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /** Starts a durable run and returns its handle at once. */
  async start(input: RunInput, options?: RunOptions<Context>): Promise<RunHandle> {
    if (options?.streamText && this.options.modelExecution === "local") {
      throw new AgentOptionsError(
        "streamText",
        `agent "${this.name}" calls its model as a local activity (modelExecution: "local"), which cannot ` +
          `stream tokens to the run; leave streamText off (events and whole answers still stream) or use ` +
          `modelExecution: "activity"`,
      );
    }
    return startRun(this, input, options);
  }

  /** Starts a durable run and streams its events as they happen (answer text token by token, unless the model call is local). */
  async stream(input: RunInput, options?: RunOptions<Context> & StreamOptions): Promise<RunEventStream> {
    const handle = await this.start(input, { streamText: this.options.modelExecution !== "local", ...options });
    return handle.stream(options);
  }

  /**
   * Runs this agent on a Temporal Schedule: a run with `options.input` (and `context`) at every
   * `cron` or `every`, on the workers of the task queue; `overlap` says what happens while the last
   * run is still going (default `"skip"`). Each run's workflow id is `<agent>-<scheduleId>-<due
   * time>`, and it carries the schedule's id as the search attribute `TemporalScheduledById`.
   * Throws `ScheduleOptionsError` (a bad cron expression, interval, zone, ...) or
   * `ScheduleExistsError`, having created nothing.
   */
  async schedule(scheduleId: string, options: AgentScheduleOptions<Context>): Promise<AgentSchedule> {
    return createAgentSchedule(this, scheduleId, options);
  }

  /** A long-lived conversation with this agent, by id: `send` messages to it, read its `history`, `end` it. */
  session(id: string, options?: SessionOptions & { context?: Context }): AgentSession {
    if (options?.streamText && this.options.modelExecution === "local") {
      throw new AgentOptionsError(
        "streamText",
        `agent "${this.name}" calls its model as a local activity (modelExecution: "local"), which cannot ` +
          `stream tokens to the session; leave streamText off or use modelExecution: "activity"`,
      );
    }
    runUser(this, options?.user); // checks it; warns once when this agent has memory and the session has no user
    return new AgentSession(this.name, id, options, this.options.contextSchema);
  }

  /** Runs the agent durably on a worker and resolves to the result; with `output` in the options, `result.output` has that schema's type. */
  async run<S extends z.ZodType>(
    input: RunInput,
    options: RunOptions<Context> & { output: S },
  ): Promise<RunResult<z.output<S>>>;
  async run(input: RunInput, options?: RunOptions<Context>): Promise<RunResult<Output>>;
  async run(input: RunInput, options?: RunOptions<Context>): Promise<RunResult<unknown>> {
    return (await this.start(input, options)).result();
  }

  /**
   * Runs every case `trials` times (each a real durable run on a worker), scores each run with
   * every scorer and resolves to an `EvalReport`. A run that rejects is an infrastructure error,
   * counted apart from failures. See `ai.eval` for the built-in scorers.
   */
  async eval<C extends EvalCase>(options: EvalOptions<C>): Promise<EvalReport> {
    const { runEval } = await import("../eval/run-eval.js");
    return runEval(this, options);
  }
}

/** An agent's version, with the agents whose versions are being taken (handoffs may form a cycle: an agent met again counts by its name). */
function versionWithin(agent: Agent, taking: Set<Agent>): string {
  taking.add(agent);
  try {
    return agentVersionOf(agent, (other) => {
      if (!(other instanceof Agent)) return other.name;
      if (taking.has(other)) return `cycle:${other.name}`;
      return other.options.version ?? versionWithin(other, taking);
    });
  } finally {
    taking.delete(agent);
  }
}

/** Defines an agent; throws `AgentOptionsError` naming a bad option. */
export function defineAgent<const O extends AgentOptions>(options: O): Agent<OutputOf<O>, ContextOf<O>> {
  return new Agent<OutputOf<O>, ContextOf<O>>(options);
}
