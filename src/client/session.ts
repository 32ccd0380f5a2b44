import { setTimeout as sleep } from "node:timers/promises";
import type { Client, WorkflowUpdateHandle } from "@temporalio/client";
import type { UIMessageChunk } from "ai";
import { readRunPart } from "../run-reads/index.js";
import { MAX_PAGE_BYTES } from "../core/paging.js";
import { SESSION_WORKFLOW_NAME } from "../core/constants.js";
import type { Message, RunResult } from "../core/types.js";
import { InvalidInputError, SessionEndedError } from "../errors.js";
import { fromFailure } from "../core/typed-failures.js";
import {
  cancelMessageUpdate,
  endUpdate,
  sendUpdate,
  sessionTurnsQuery,
  type AgentSessionArgs,
  type SendDetails,
  type SessionInput,
  type SessionTurn,
  type SessionTurns,
} from "../workflows/definitions.js";
import { getDefaultClient, temporalSettings } from "./connection.js";
import { checkContext } from "./start-run.js";
import { normalizeInput } from "./normalize-input.js";
import type { z } from "zod";
import { defined } from "../core/defined.js";
import { loadTemporalClient } from "../run-reads/index.js";
import { uiMessageStream, uiMessageStreamResponse, type UIMessageStreamOptions } from "../streaming/client/index.js";
import { SESSION_OWNER_MEMO } from "../core/session-memo.js";
import { checkUser } from "../memory/index.js";

/** Options of `agent.session()`. */
export interface SessionOptions {
  /** The Temporal client; default one connected from the environment. */
  client?: Client;
  /** The task queue the agent's worker polls. */
  taskQueue?: string;
  /** Stream answer text token by token to the session's stream. */
  streamText?: boolean;
  /** The session's context, for every message (see `RunOptions.context`); recorded when the first send starts the session. */
  context?: unknown;
  /**
   * The session's owner (a chat's user), recorded when the first message starts the session: in
   * its input, where the session itself refuses sends by anyone else (`SessionOwnerError`), and in
   * its memo (`durableAgentChatOwner`), which `session.describe()` reads. Sends then pass `by`.
   */
  owner?: string;
  /**
   * Whose memory the session is (a user id: 1-256 characters, no control characters; else
   * `InvalidUserError`), recorded when the first message starts the session. With an agent's
   * `memory`, each message recalls this user's past messages and working memory, and is remembered.
   */
  user?: string;
}

export { SESSION_OWNER_MEMO } from "../core/session-memo.js";

/** Options of `session.send()` and `session.start()`: who sends, whether to refuse the message while another is answered, and its id. */
export interface SendOptions extends SendDetails {
  /**
   * The id of the `send` Update that carries the message (default: a new one), chosen by the caller
   * to know it before the session answers (`SessionMessage.updateId` is the same). A send with the id
   * of a message the session has taken (in its current run, or among its last 64 messages after it
   * continued as new) is that message again, not a second one: a retried request names its message this way.
   */
  updateId?: string;
}

/** What `session.describe()` tells about a session without a worker: whether it exists, its owner, and whether it is open. */
export interface SessionDescription {
  /** The owner recorded when the session started, if any. */
  owner?: string;
  /** False once the session has ended (or closed otherwise): it takes no more messages. */
  open: boolean;
}

/**
 * A long-lived conversation with an agent, held by an `agentSession` workflow with the id
 * `<agent>-session-<id>`. The first `send` starts it (update-with-start); sends are answered in order.
 */
export class AgentSession {
  /** The session's workflow id. */
  readonly workflowId: string;

  constructor(
    readonly agent: string,
    readonly id: string,
    private readonly options: SessionOptions = {},
    contextSchema?: z.ZodType,
  ) {
    this.workflowId = `${agent}-session-${id}`;
    this.#context = checkContext(contextSchema, options.context);
    if (options.user !== undefined) checkUser(options.user);
  }

  readonly #context: unknown;

  /**
   * Sends a message and resolves to its `RunResult` (this message's messages, tool calls, trips and
   * trace). A message the run fails on rejects with the typed error that ended it (as
   * `handle.result()` does); a session that has ended, with `SessionEndedError`.
   */
  async send(message: SessionInput, options: SendOptions = {}): Promise<RunResult> {
    checkMessage(message);
    const client = await this.client();
    try {
      return await client.workflow.executeUpdateWithStart(sendUpdate, {
        args: sendArgs(message, options),
        ...defined({ updateId: options.updateId }),
        startWorkflowOperation: await this.startOperation(),
      });
    } catch (error) {
      throw await this.sendError(error);
    }
  }

  /**
   * Sends a message without waiting for its answer: resolves once the session has taken it, to a
   * handle on it (its index and offsets with `turn()`, its result with `result()`). With `ifIdle`,
   * a session still answering another message refuses it with `SessionBusyError`.
   */
  async start(message: SessionInput, options: SendOptions = {}): Promise<SessionMessage> {
    checkMessage(message);
    const client = await this.client();
    try {
      const update = await client.workflow.startUpdateWithStart(sendUpdate, {
        args: sendArgs(message, options),
        ...defined({ updateId: options.updateId }),
        waitForStage: "ACCEPTED",
        startWorkflowOperation: await this.startOperation(),
      });
      // Accepted, or rejected by the session's validator (ended, another owner, busy): a rejected send leaves no turn, and its result is the refusal.
      const taken = (await this.turns()).turns.find((turn) => turn.updateId === update.updateId);
      if (!taken) await update.result();
      return new SessionMessage(this, update, (error) => this.sendError(error), taken);
    } catch (error) {
      throw await this.sendError(error);
    }
  }

  /** Every message of the session so far: status, and where its events and messages start; and the stream's next offset. */
  async turns(): Promise<SessionTurns> {
    return (await this.client()).workflow.getHandle(this.workflowId).query(sessionTurnsQuery);
  }

  /**
   * Stops the message being answered (or, with `index`, that message only if it is the one being
   * answered): its model and tool calls are cancelled and it ends with stopReason "cancelled";
   * the session takes the next message. Resolves to the stopped message's index, or null.
   */
  async cancelMessage(index?: number): Promise<number | null> {
    const handle = (await this.client()).workflow.getHandle(this.workflowId);
    return handle.executeUpdate(cancelMessageUpdate, { args: [index ?? null] });
  }

  /** Whether the session exists, its owner and whether it is open, read from Temporal alone (no worker); undefined when it was never started. */
  async describe(): Promise<SessionDescription | undefined> {
    const handle = (await this.client()).workflow.getHandle(this.workflowId);
    try {
      const description = await handle.describe();
      const owner = description.memo?.[SESSION_OWNER_MEMO];
      return { open: description.status.name === "RUNNING", ...(typeof owner === "string" ? { owner } : {}) };
    } catch (error) {
      const { WorkflowNotFoundError } = await loadTemporalClient();
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
  }

  private async startOperation() {
    const { WithStartWorkflowOperation } = await loadTemporalClient();
    const { owner, user } = this.options;
    const args: AgentSessionArgs = {
      agent: this.agent,
      ...(this.options.streamText ? { streamText: true } : {}),
      ...defined({ context: this.#context, owner, user }),
    };
    return new WithStartWorkflowOperation(SESSION_WORKFLOW_NAME, {
      workflowId: this.workflowId,
      taskQueue: temporalSettings({ taskQueue: this.options.taskQueue }).taskQueue,
      args: [args],
      workflowIdConflictPolicy: "USE_EXISTING",
      workflowIdReusePolicy: "REJECT_DUPLICATE", // an ended session stays ended
      staticSummary: `${this.agent} session ${this.id}`,
      ...(owner !== undefined ? { memo: { [SESSION_OWNER_MEMO]: owner } } : {}),
    });
  }

  private async sendError(error: unknown): Promise<unknown> {
    const { WorkflowExecutionAlreadyStartedError } = await loadTemporalClient();
    const typed = fromFailure(error);
    // An ended session's id is not reused: a send after the end finds its closed workflow, or the session's own refusal.
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      // Its closed workflow says whether it ended, or failed (then its failure is the answer).
      const closed = await this.closedError().catch(() => undefined);
      return closed ?? new SessionEndedError(this.workflowId);
    }
    if (SessionEndedError.isInstance(typed)) return new SessionEndedError(this.workflowId);
    // A send the session never answered because the session itself stopped (it failed): the session's failure says why.
    return typed ?? (await this.closedError().catch(() => undefined)) ?? error;
  }

  /**
   * Why the session takes no more messages, once its workflow has stopped running: the typed error
   * it failed with (for an agent no worker serves, `UnknownAgentError`), or `SessionEndedError`
   * once it ended; undefined while it runs.
   */
  async closedError(): Promise<unknown> {
    const handle = (await this.client()).workflow.getHandle(this.workflowId);
    const { status } = await handle.describe();
    if (status.name === "RUNNING") return undefined;
    try {
      await handle.result();
      return new SessionEndedError(this.workflowId);
    } catch (error) {
      return fromFailure(error) ?? error;
    }
  }

  /**
   * The turn `match` picks, once the session is answering it (or has answered it): a queued
   * message has no offsets yet. Throws the session's `closedError()` when the session stops
   * running before it gets there (it failed), rather than waiting for ever.
   */
  async startedTurn(match: (turn: SessionTurn) => boolean): Promise<SessionTurn> {
    for (let pause = TURN_POLL_MS, polls = 0; ; pause = Math.min(TURN_POLL_MAX_MS, pause * 2), polls++) {
      const { turns } = await this.turns();
      const turn = turns.find(match);
      if (turn && turn.status !== "queued") return turn;
      const closed = polls > 0 ? await this.closedError() : undefined;
      if (closed !== undefined) throw closed;
      await sleep(pause);
    }
  }

  /** The whole conversation so far. */
  async history(): Promise<Message[]> {
    return readRunPart<Message>(
      await this.client(),
      { workflowId: this.workflowId },
      "messages",
      0,
      undefined,
      MAX_PAGE_BYTES,
    );
  }

  /** Ends the session once the messages already sent are answered. */
  async end(): Promise<void> {
    const handle = (await this.client()).workflow.getHandle(this.workflowId);
    await handle.executeUpdate(endUpdate);
    await handle.result();
  }

  /** The Temporal client the session is reached through. */
  async client(): Promise<Client> {
    return this.options.client ?? getDefaultClient();
  }
}

/** Pause between reads of a queued message's turn, growing to TURN_POLL_MAX_MS. */
const TURN_POLL_MS = 50;
const TURN_POLL_MAX_MS = 500;

/** A message sent with `session.start()`: its turn (index, status, offsets) and its result. */
export class SessionMessage {
  constructor(
    /** The session it was sent to. */
    readonly session: AgentSession,
    private readonly update: WorkflowUpdateHandle<RunResult>,
    private readonly typed: (error: unknown) => unknown,
    /** Its turn as the session listed it when it took the message (queued, or already being answered). */
    readonly taken?: SessionTurn,
  ) {}

  /** The id of the `send` Update that carries it. */
  get updateId(): string {
    return this.update.updateId;
  }

  /** Its answer's `RunResult`; a message the run fails on rejects with the typed error, as `send` does. */
  async result(): Promise<RunResult> {
    try {
      return await this.update.result();
    } catch (error) {
      throw await this.typed(error);
    }
  }

  /**
   * Its answer as the AI SDK's UI message stream (what `useChat` reads), from the message's own
   * start in the session's stream (`fromOffset` and `fromMessage` default to its turn's) to its
   * end; the message id defaults to the session's workflow id and the message's index. A queued
   * message's stream opens once the session starts answering it.
   */
  toUIMessageStreamResponse(options: UIMessageStreamOptions = {}, init?: ResponseInit): Response {
    const { readable, writable } = new TransformStream<UIMessageChunk, UIMessageChunk>();
    void (async () => {
      const turn = await this.turn({ started: true });
      const client = await this.session.client();
      const stream = uiMessageStream(client, this.session.workflowId, {
        messageId: `${this.session.workflowId}-m${turn.index}`,
        ...defined({ fromOffset: turn.fromOffset, fromMessage: turn.messagesFrom }),
        ...options,
      });
      await stream.pipeTo(writable);
    })().catch((error: unknown) => writable.abort(error).catch(() => undefined));
    return uiMessageStreamResponse(readable, init);
  }

  /**
   * Its turn in the session. With `started`, waits until it is being answered (a queued message
   * has no offsets yet), and throws the session's failure if the session stops first.
   */
  async turn(options: { started?: boolean } = {}): Promise<SessionTurn> {
    if (options.started) return this.session.startedTurn((t) => t.updateId === this.updateId);
    for (let pause = TURN_POLL_MS; ; pause = Math.min(TURN_POLL_MAX_MS, pause * 2)) {
      const { turns } = await this.session.turns();
      const turn = turns.find((t) => t.updateId === this.updateId);
      if (turn) return turn;
      await sleep(pause);
    }
  }
}

/** Checks a message: text that is not empty, or content parts as a user message takes them (`InvalidInputError` otherwise). */
function checkMessage(message: unknown): void {
  if (Array.isArray(message)) normalizeInput([{ role: "user", content: message }]);
  else if (typeof message !== "string" || message.trim() === "")
    throw new InvalidInputError("a session message is a non-empty string, or content parts (text, images, files)");
}

/** The send Update's arguments: the message alone when nothing comes with it (as sends always were). */
function sendArgs(message: SessionInput, options: SendOptions): [SessionInput] | [SessionInput, SendDetails] {
  const details = defined({
    by: options.by,
    ifIdle: options.ifIdle || undefined,
    regenerates: options.regenerates,
    streamText: options.streamText,
  });
  return Object.keys(details).length > 0 ? [message, details] : [message];
}
