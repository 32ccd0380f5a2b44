import { randomUUID } from "node:crypto";
import type { Client, InternalConnectionLike } from "@temporalio/client";
import type { Duration } from "@temporalio/common";
import { PAYLOAD_LIMIT_BYTES, WORKFLOW_NAME } from "../core/constants.js";
import { durationMs, durationProblem } from "../duration.js";
import { AgentOptionsError, ContextValidationError, PayloadTooLargeError } from "../errors.js";

const zPrettify = (error: z.ZodError) => z.prettifyError(error).replace(/\n\s*/g, " ");
import type { AgentRunArgs } from "../workflows/definitions.js";
import { getDefaultClient, temporalSettings } from "./connection.js";
import { normalizeInput } from "./normalize-input.js";
import { NO_WORKER_WARNING_AFTER, watchForNoWorker, type RunLogger } from "./no-worker-warning.js";
import { RunHandle } from "./run-handle.js";
import type { AgentDefinition } from "../agent/agent-definition.js";
import { validateBudget, validateOutputSchema } from "../agent/validate-options.js";
import { MODEL_SETTING_KEYS, validateSamplingSettings, validateToolChoice } from "../models/model-settings.js";
import { checkKnownKeys } from "../options/known-keys.js";
import type { ModelSettings } from "../core/model-settings.js";
import { outputJsonSchema } from "../models/structured-output.js";
import { z } from "zod";
import { textOf, type Message } from "../core/types.js";
import type { Budget } from "../core/usage.js";
import { defined } from "../core/defined.js";
import { loadTemporalClient } from "../run-reads/index.js";
import { runUser } from "./run-user.js";

/**
 * Whether the client talks through a `NativeConnection`, which a worker in this process may share:
 * then the run starts eagerly (its first workflow task comes back in the start call's answer when a
 * local worker polls the task queue; else the start is an ordinary one).
 */
async function sharesAWorkerConnection(client: Client): Promise<boolean> {
  const sdk = await loadTemporalClient();
  return (client.connection as InternalConnectionLike)[sdk.InternalConnectionLikeSymbol]?.supportsEagerStart === true;
}

/** Options of `agent.run()` and `agent.start()`. `Context` is the type of `context` (from the agent's `contextSchema`). */
export interface RunOptions<Context = unknown> {
  /**
   * A JSON value for this run (a user id, a tenant, feature flags): checked with the agent's
   * `contextSchema`, recorded once in the workflow input (encrypted with the codec), and given to
   * tools (`ctx.context`), backstops, hint and `isRefusal` functions, and instructions.
   */
  context?: Context;
  /** An id for the run, unique per agent: the workflow id becomes `<agent name>-<id>`. Default a UUID. */
  id?: string;
  /** The whole workflow id, overriding `id`. */
  workflowId?: string;
  /** End the run with stopReason "timed-out" (a result, not an error) after this long, e.g. "5 minutes" or a number of milliseconds. */
  timeout?: Duration;
  /** The Temporal client; default one connected from `TEMPORAL_ADDRESS` / `TEMPORAL_NAMESPACE`. */
  client?: Client;
  /** The task queue the agent's worker polls; default `TEMPORAL_TASK_QUEUE`, else `durable-agent`. */
  taskQueue?: string;
  /** Stream answer text token by token to the run's stream (default: on for `agent.stream()`, off otherwise). */
  streamText?: boolean;
  /** This run's budget `{ maxTokens?, maxCostUsd? }`; its fields override the agent's `budget`. */
  budget?: Budget;
  /**
   * Warn once when the run's first workflow task has not started this long after the start and no
   * worker polls its task queue (default "5 seconds"; `false` turns the check off). The run still waits.
   */
  noWorkerWarningAfter?: Duration | false;
  /** Where that warning goes (default `console`). */
  logger?: RunLogger;
  /** A zod schema for this run's final answer, over the agent's `output`: `result.output` is its typed value. */
  output?: z.ZodType;
  /** This run's model settings (`toolChoice`, `topP`, `seed`, ...); its fields override those of `ai.openai(id, settings)`. */
  modelSettings?: ModelSettings;
  /**
   * Whose memory the run is (a user id: 1-256 characters, no control characters; else
   * `InvalidUserError`). With an agent's `memory`, the run recalls this user's past messages and
   * working memory and remembers its own. A run without a user has no memory.
   */
  user?: string;
}

const DATA_URL_HINT =
  "Images given as data: URLs are part of the run's input and count against the limit; pass an https URL to the image instead.";

function hasDataUrl(messages: Message[]): boolean {
  return messages.some(
    (m) =>
      m.role === "user" &&
      Array.isArray(m.content) &&
      m.content.some((part) => part.type === "image_url" && part.image_url.url.startsWith("data:")),
  );
}

/** The context as the run records it: validated with the schema (its output), and plain JSON; throws `ContextValidationError`. */
export function checkContext(schema: z.ZodType | undefined, context: unknown): unknown {
  let value = context;
  if (schema) {
    const parsed = schema.safeParse(context);
    if (!parsed.success) throw new ContextValidationError(zPrettify(parsed.error));
    value = parsed.data;
  }
  if (value === undefined) return undefined;
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new ContextValidationError(`it cannot be serialised to JSON (${(error as Error).message})`);
  }
  if (json === undefined) throw new ContextValidationError(`a ${typeof value} is not a JSON value`);
  return JSON.parse(json) as unknown;
}

/** What starting a run sends, checked: the workflow's argument and its start options (a schedule's action sends the same). */
export interface RunStart {
  /** The agent's name. */
  agent: string;
  /** The `agentRun` workflow's one argument. */
  args: AgentRunArgs;
  /** The task queue the agent's worker polls. */
  taskQueue: string;
  /** The workflow id: `<agent>-<id>` (a UUID without `id`), or `workflowId`. */
  workflowId: string;
  /** The run's summary in Temporal's UI: the agent and the first line of the last user message. */
  staticSummary: string;
}

/**
 * Checks a run's options and input (throwing the typed error naming what to fix) and builds what
 * its start sends. Given only the agent's name (the CLI, which may not have the agent's module),
 * options that need the definition to be checked are checked by the worker. `recorded` carries a
 * replay's recording or a fork's prefix into the run's input.
 */
export function prepareRunStart(
  agent: AgentDefinition | string,
  input: unknown,
  options: RunOptions = {},
  recorded: Pick<AgentRunArgs, "replay" | "fork" | "output" | "overrides"> = {},
): RunStart {
  const name = typeof agent === "string" ? agent : agent.name;
  if (typeof agent !== "string") validateBudget(options.budget, "budget", agent.options.model);
  validateOutputSchema(options.output, "output");
  if (options.modelSettings !== undefined) {
    if (typeof options.modelSettings !== "object" || options.modelSettings === null)
      throw new AgentOptionsError("modelSettings", "must be an object");
    checkKnownKeys(options.modelSettings, MODEL_SETTING_KEYS, "run()", "modelSettings");
    validateSamplingSettings(options.modelSettings, "modelSettings");
    if (typeof agent !== "string")
      validateToolChoice(options.modelSettings, new Set(agent.tools.map((t) => t.name)), "modelSettings");
  }
  const timeoutMs = options.timeout === undefined ? undefined : durationMs(options.timeout, true);
  if (options.timeout !== undefined && timeoutMs === undefined)
    throw new AgentOptionsError("timeout", durationProblem(options.timeout, true));
  const context = checkContext(typeof agent === "string" ? undefined : agent.options.contextSchema, options.context);
  const user = runUser(agent, options.user, options.logger);
  const args: AgentRunArgs = {
    agent: name,
    messages: normalizeInput(input),
    ...(options.streamText ? { streamText: true } : {}),
    ...defined({ timeoutMs, budget: options.budget }),
    ...(options.output ? { output: outputJsonSchema(options.output) } : {}),
    ...defined({ context, modelSettings: options.modelSettings, user }),
    ...recorded, // a replay's recording, or a fork's recorded prefix (src/datasets, src/fork)
  };
  const bytes = Buffer.byteLength(JSON.stringify(args));
  if (bytes > PAYLOAD_LIMIT_BYTES)
    throw new PayloadTooLargeError(
      "The run input",
      bytes,
      PAYLOAD_LIMIT_BYTES,
      hasDataUrl(args.messages) ? DATA_URL_HINT : undefined,
    );
  const last = args.messages.findLast((m) => m.role === "user");
  const firstLine = (last ? textOf(last.content) : "").split("\n")[0] ?? "";
  return {
    agent: name,
    args,
    taskQueue: temporalSettings({ taskQueue: options.taskQueue }).taskQueue,
    workflowId: options.workflowId ?? `${name}-${options.id ?? randomUUID()}`,
    staticSummary: `${name}: ${firstLine.slice(0, 120)}`,
  };
}

/** Starts an `agentRun` workflow for the agent (`prepareRunStart` checks and builds what it sends). */
export async function startRun(
  agent: AgentDefinition | string,
  input: unknown,
  options: RunOptions = {},
  recorded: Pick<AgentRunArgs, "replay" | "fork" | "output" | "overrides"> = {},
): Promise<RunHandle> {
  const warnAfter = options.noWorkerWarningAfter ?? NO_WORKER_WARNING_AFTER;
  if (warnAfter !== false && durationMs(warnAfter) === undefined)
    throw new AgentOptionsError("noWorkerWarningAfter", `${durationProblem(warnAfter)}, or false`);
  const start = prepareRunStart(agent, input, options, recorded);
  const client = options.client ?? (await getDefaultClient());
  const workflow = await client.workflow.start(WORKFLOW_NAME, {
    args: [start.args],
    taskQueue: start.taskQueue,
    workflowId: start.workflowId,
    staticSummary: start.staticSummary,
    ...((await sharesAWorkerConnection(client)) ? { requestEagerStart: true } : {}),
  });
  if (warnAfter !== false) {
    void watchForNoWorker(client, workflow, {
      agent: start.agent,
      taskQueue: start.taskQueue,
      after: warnAfter,
      logger: options.logger ?? console,
    });
  }
  return new RunHandle(workflow, client);
}
