/**
 * The A2A request handler (`@a2a-js/sdk`'s `A2ARequestHandler`, which its JSON-RPC transports of
 * A2A 0.3 and 1.0 call) over this library's sessions, for one caller and one agent. A context is a
 * session of the agent (`a2a-<caller's key>-<contextId>`, owned by the caller), a task is one
 * message of it (`<contextId>~<the id of the update that sent it>`), so follow-up messages share one conversation and every
 * task is a durable run: it outlives the connection, and any connection reads it again.
 */
import { createHash, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@temporalio/client";
import type {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
} from "@a2a-js/sdk";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import { getRun } from "../client/run-handle.js";
import type { AgentSession } from "../client/session.js";
import { readRunPart } from "../run-reads/index.js";
import type { Message as RunMessage, RunResult } from "../core/types.js";
import { defined } from "../core/defined.js";
import type { SessionTurn } from "../workflows/definitions.js";
import type { A2AAgent } from "./agent-card.js";
import type { A2ASdk } from "./load-sdk.js";
import { decisionInText, readMessage, type A2ADecision } from "./message-input.js";
import { answerText, settled, taskOf, type TaskRef } from "./task-view.js";
import { turnEvents } from "./turn-events.js";

/** What a handler for one request knows: the agent, the caller, and how to reach Temporal. */
export interface DurableTasksOptions {
  agent: A2AAgent;
  /** The caller, as `authorize` named them: owner of their contexts and tasks, and the decider of their approvals. */
  by: string;
  client: Client;
  taskQueue?: string;
  /** The run's context for the caller's sessions (see `RunOptions.context`). */
  context?: unknown;
  sdk: A2ASdk;
  /** The request's signal: aborted when the client goes away, which ends its streams. */
  signal: AbortSignal;
  /** The agent's card (A2A 1.0's shape), which the SDK's transports read. */
  card: AgentCard;
}

/** A context id a client may choose: letters, digits and `._:-`, at most 128 characters. */
const CONTEXT_ID = /^[\w.:-]{1,128}$/;
/** Pause between reads of a message's turn that the stream has seen end, until its status says so too. */
const SETTLE_POLL_MS = 20;
/** The longest pause between reads of a message's turn that is not answered yet (queued behind another, or not taken). */
const TURN_POLL_MAX_MS = 500;
/** How long a blocking `message/send` waits for its answer before it follows the stream too (for a call waiting for approval). */
const FOLLOW_AFTER_MS = 250;
const SLOW = Symbol("slow");

/** The tasks of one caller with one agent, as A2A asks for them. */
export class DurableTasks implements A2ARequestHandler {
  readonly #o: DurableTasksOptions;
  readonly #userKey: string;

  constructor(options: DurableTasksOptions) {
    this.#o = options;
    this.#userKey = createHash("sha256").update(options.by).digest("hex").slice(0, 16);
  }

  async getAgentCard(): Promise<AgentCard> {
    return this.#o.card;
  }

  async sendMessage(params: SendMessageRequest): Promise<Message | Task> {
    const blocking = !params.configuration?.returnImmediately;
    const { ref, session, key, answer } = await this.#accept(params, blocking);
    if (!blocking) return this.#task(ref, session, key);
    // Answered when the message's answer is (its send's result), or when its stream ends first at a call waiting for approval.
    // The stream is read only once the answer takes longer than FOLLOW_AFTER_MS: a quick answer costs one request to
    // Temporal (the send) and no reads. (A decision on a waiting task has no answer of its own: it follows the stream at once.)
    const answered = answer?.catch(async (error: unknown) => {
      // A message the session took and then failed on is a failed task; one it refused (no turn) is this request's error.
      if (await this.#listed(session, key)) return undefined;
      throw error;
    });
    void answered?.catch(() => undefined); // raced below; a refusal after the stream ended has no one left to tell
    const stop = new AbortController();
    const signal = AbortSignal.any([this.#o.signal, stop.signal]);
    let result: RunResult | undefined;
    try {
      const quick = answered
        ? await Promise.race([
            answered,
            sleep<typeof SLOW>(FOLLOW_AFTER_MS, SLOW, { signal }).catch((): typeof SLOW => SLOW),
          ])
        : SLOW;
      result = quick === SLOW ? undefined : quick;
      if (quick === SLOW) {
        const drained = (async () => {
          for await (const event of this.#events(ref, session, key, signal, answer === undefined)) void event;
        })();
        try {
          // A client that went away ends the stream (the wait for its turn throws): the task as it stands, to no one.
          const ended = drained.then(
            () => undefined,
            (error: unknown) => {
              if (signal.aborted) return undefined;
              throw error;
            },
          );
          result = await Promise.race([answered ?? new Promise<never>(() => {}), ended]);
        } finally {
          stop.abort();
          await drained.catch(() => undefined);
        }
      }
    } finally {
      stop.abort();
    }
    if (result === undefined) return this.#task(ref, session, key);
    const status = result.stopReason === "cancelled" ? "cancelled" : "answered";
    return taskOf(ref, { index: -1, status, updateId: key }, answerText(result.messages) || undefined, []);
  }

  async *sendMessageStream(params: SendMessageRequest): AsyncGenerator<StreamResponse> {
    const { ref, session, key, taken } = await this.#accept(params);
    // A new message's turn as the session took it: the task as it stands, and, once answered, where its events start.
    const fresh = taken && !settled(taken.status) ? taken : undefined;
    yield {
      payload: {
        $case: "task",
        value: fresh ? taskOf(ref, fresh, undefined, []) : await this.#task(ref, session, key),
      },
    };
    yield* this.#events(ref, session, key, this.#o.signal, true, fresh?.status === "answering" ? fresh : undefined);
  }

  async getTask(params: GetTaskRequest): Promise<Task> {
    const { ref, session, key } = await this.#find(params.id);
    return this.#task(ref, session, key);
  }

  async cancelTask(params: CancelTaskRequest): Promise<Task> {
    const { ref, session, key } = await this.#find(params.id);
    const turn = await this.#turn(session, key);
    if (turn.status === "queued" || (await session.cancelMessage(turn.index)) === null)
      throw this.#o.sdk.A2AError.taskNotCancelable(ref.taskId);
    await this.#settledTurn(session, key);
    return this.#task(ref, session, key);
  }

  async *resubscribe(params: SubscribeToTaskRequest): AsyncGenerator<StreamResponse> {
    const { ref, session, key } = await this.#find(params.id);
    const task = await this.#task(ref, session, key);
    yield { payload: { $case: "task", value: task } };
    const turn = await this.#turn(session, key);
    if (!settled(turn.status)) yield* this.#events(ref, session, key);
  }

  getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return Promise.reject(this.#o.sdk.A2AError.authenticatedExtendedCardNotConfigured());
  }
  createTaskPushNotificationConfig(): never {
    throw this.#o.sdk.A2AError.pushNotificationNotSupported();
  }
  getTaskPushNotificationConfig(): never {
    throw this.#o.sdk.A2AError.pushNotificationNotSupported();
  }
  listTaskPushNotificationConfigs(): never {
    throw this.#o.sdk.A2AError.pushNotificationNotSupported();
  }
  deleteTaskPushNotificationConfig(): never {
    throw this.#o.sdk.A2AError.pushNotificationNotSupported();
  }
  listTasks(): never {
    throw this.#o.sdk.A2AError.unsupportedOperation("tasks/list");
  }

  /**
   * Takes a message: a new task in its context's session (started with the first), or, on a task
   * waiting for approval, the decision it carries (recorded as the caller's). With `answer`, a new
   * message is sent under an id chosen here and not waited for: its `answer` is the send's result
   * (a refusal rejects it), and the session lists its turn once it has taken it. Without, the
   * message is taken (or refused) when this resolves.
   */
  async #accept(
    params: SendMessageRequest,
    answer = false,
  ): Promise<{ ref: TaskRef; session: AgentSession; key: string; answer?: Promise<RunResult>; taken?: SessionTurn }> {
    const { A2AError } = this.#o.sdk;
    const input = readMessage(params.message);
    if ("problem" in input) throw A2AError.invalidParams(input.problem);
    const { taskId, contextId: asked } = params.message!;
    if (taskId) {
      const found = await this.#find(taskId);
      const turn = await this.#turn(found.session, found.key);
      if (turn.status !== "waiting-for-approval")
        throw A2AError.invalidParams(
          `task ${taskId} is not waiting for input (its message is ${turn.status}): send a new message with its contextId, without taskId`,
        );
      const decision = input.decision ?? decisionInText(input.text);
      if (!decision)
        throw A2AError.invalidParams(
          `task ${taskId} waits for approval: answer "approve" or "reject", or a data part { "approve": true | false, "reason"? }`,
        );
      await this.#decide(found.session, decision);
      return found;
    }
    if (input.decision)
      throw A2AError.invalidParams("an approval decision goes with the taskId of the task that waits");
    const contextId = asked || randomUUID();
    if (!CONTEXT_ID.test(contextId))
      throw A2AError.invalidParams("contextId must be 1 to 128 letters, digits, '.', '_', ':' or '-'");
    const session = this.#session(contextId);
    if (answer) {
      const key = randomUUID();
      // A blocking send waits for the answer whole: its text is not streamed (heartbeats cost it several ms).
      const sent = session.send(input.text, { by: this.#o.by, updateId: key, streamText: false });
      return { ref: this.#ref(contextId, session, key), session, key, answer: sent };
    }
    const { updateId: key, taken } = await session.start(input.text, { by: this.#o.by });
    return { ref: this.#ref(contextId, session, key), session, key, ...defined({ taken }) };
  }

  /** Sends the decision on every call of the session that waits (or the one `callId` names), as the caller's. */
  async #decide(session: AgentSession, decision: A2ADecision): Promise<void> {
    const run = await getRun(session.workflowId, { client: this.#o.client });
    const pending = (await run.pendingApprovals()).filter(
      (p) => decision.callId === undefined || p.callId === decision.callId,
    );
    if (pending.length === 0)
      throw this.#o.sdk.A2AError.invalidParams(
        `no call ${decision.callId ?? ""} waits for approval in this task`.replace("  ", " "),
      );
    const by = this.#o.by;
    for (const { callId } of pending) {
      if (decision.approve) await run.approve(callId, { by });
      else await run.reject(callId, { by, reason: decision.reason ?? `rejected by ${by}` });
    }
  }

  /** The caller's task of that id, or the SDK's task-not-found (another caller's task is not found either). */
  async #find(taskId: string): Promise<{ ref: TaskRef; session: AgentSession; key: string }> {
    if (typeof taskId !== "string" || taskId === "")
      throw this.#o.sdk.A2AError.invalidParams("params.id must be a task id (a string)");
    const match = /^(.+)~([\w-]{1,64})$/.exec(taskId);
    const session = match && CONTEXT_ID.test(match[1]!) ? this.#session(match[1]!) : undefined;
    const description = await session?.describe();
    if (!session || description?.owner !== this.#o.by) throw this.#o.sdk.A2AError.taskNotFound(taskId);
    const key = match![2]!;
    const { turns } = await session.turns();
    if (!turns.some((t) => t.updateId === key)) throw this.#o.sdk.A2AError.taskNotFound(taskId);
    return { ref: this.#ref(match![1]!, session, key), session, key };
  }

  #session(contextId: string): AgentSession {
    return this.#o.agent.session(`a2a-${this.#userKey}-${contextId}`, {
      client: this.#o.client,
      owner: this.#o.by,
      streamText: true,
      ...defined({ taskQueue: this.#o.taskQueue, context: this.#o.context }),
    });
  }

  #ref(contextId: string, session: AgentSession, key: string): TaskRef {
    return { taskId: `${contextId}~${key}`, contextId, workflowId: session.workflowId };
  }

  /** Whether the session lists the message's turn (it took the message); false when it cannot say. */
  async #listed(session: AgentSession, key: string): Promise<boolean> {
    const listed = await session.turns().catch(() => undefined);
    return listed?.turns.some((t) => t.updateId === key) ?? false;
  }

  async #turn(session: AgentSession, key: string): Promise<SessionTurn> {
    const turn = (await session.turns()).turns.find((t) => t.updateId === key);
    if (!turn) throw this.#o.sdk.A2AError.taskNotFound(`${session.id}~${key}`);
    return turn;
  }

  /** The turn once its status has caught up with its stream's end (it has ended, or waits for a decision). */
  async #settledTurn(session: AgentSession, key: string): Promise<SessionTurn> {
    for (;;) {
      const turn = await this.#turn(session, key);
      if (settled(turn.status)) return turn;
      await sleep(SETTLE_POLL_MS, undefined, { signal: this.#o.signal });
    }
  }

  /** The task as it stands: its state, its answer once it has ended, the calls that wait. */
  async #task(ref: TaskRef, session: AgentSession, key: string): Promise<Task> {
    const turn = await this.#turn(session, key);
    let answer: string | undefined;
    if (settled(turn.status) && turn.messagesFrom !== undefined) {
      const messages = await readRunPart<RunMessage>(
        this.#o.client,
        { workflowId: ref.workflowId },
        "messages",
        turn.messagesFrom,
        turn.messagesTo,
      );
      answer = answerText(messages) || undefined;
    }
    const pending =
      turn.status === "waiting-for-approval"
        ? await (await getRun(ref.workflowId, { client: this.#o.client })).pendingApprovals()
        : [];
    return taskOf(ref, turn, answer, pending);
  }

  /**
   * The message's turn once the session answers it. A message being sent may not be taken yet: its
   * turn is not listed, or the query fails (a session whose first workflow task has not completed is
   * not ready for queries; with no worker on the queue, a query times out). Both are asked again
   * until `signal` stops: the send has ended (answered, or refused) or the client went away.
   */
  async #startedTurn(session: AgentSession, key: string, signal: AbortSignal): Promise<SessionTurn> {
    for (let pause = SETTLE_POLL_MS; ; pause = Math.min(TURN_POLL_MAX_MS, pause * 2)) {
      const listed = await session.turns().catch(() => undefined);
      const turn = listed?.turns.find((t) => t.updateId === key);
      if (turn && turn.status !== "queued") return turn;
      await sleep(pause, undefined, { signal });
    }
  }

  /**
   * The task's events from its message's start, once the session answers it (`taken`: the session
   * has taken the message, and a session that fails first ends the events with its failure), or
   * from `started`, its turn already read while it is answered.
   */
  async *#events(
    ref: TaskRef,
    session: AgentSession,
    key: string,
    signal = this.#o.signal,
    taken = true,
    started?: SessionTurn,
  ): AsyncGenerator<StreamResponse> {
    const turn =
      started ??
      (taken ? await session.startedTurn((t) => t.updateId === key) : await this.#startedTurn(session, key, signal));
    yield* turnEvents(
      this.#o.client,
      ref,
      turn,
      {
        settledTurn: () => this.#settledTurn(session, key),
        pendingApprovals: async () => (await getRun(ref.workflowId, { client: this.#o.client })).pendingApprovals(),
      },
      signal,
    );
  }
}
