import type { Client } from "@temporalio/client";
import { readRunPart } from "./run-reader.js";
import { MAX_PAGE_BYTES } from "../core/paging.js";
import { SESSION_WORKFLOW_NAME } from "../core/constants.js";
import type { Message, RunResult } from "../core/types.js";
import { InvalidInputError, SessionEndedError } from "../errors.js";
import { fromFailure } from "../core/typed-failures.js";
import { endUpdate, sendUpdate, type AgentSessionArgs } from "../workflows/definitions.js";
import { getDefaultClient, temporalSettings } from "./connection.js";
import { checkContext } from "./start-run.js";
import type { z } from "zod";
import { defined } from "../core/defined.js";
import { loadTemporalClient } from "./temporal-sdk.js";

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
  }

  readonly #context: unknown;

  /**
   * Sends a message and resolves to its `RunResult` (this message's messages, tool calls, trips and
   * trace). A message the run fails on rejects with the typed error that ended it (as
   * `handle.result()` does); a session that has ended, with `SessionEndedError`.
   */
  async send(message: string): Promise<RunResult> {
    if (typeof message !== "string" || message.trim() === "")
      throw new InvalidInputError("a session message is a non-empty string");
    const client = await this.client();
    const { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError } = await loadTemporalClient();
    const args: AgentSessionArgs = {
      agent: this.agent,
      ...(this.options.streamText ? { streamText: true } : {}),
      ...defined({ context: this.#context }),
    };
    const start = new WithStartWorkflowOperation(SESSION_WORKFLOW_NAME, {
      workflowId: this.workflowId,
      taskQueue: temporalSettings({ taskQueue: this.options.taskQueue }).taskQueue,
      args: [args],
      workflowIdConflictPolicy: "USE_EXISTING",
      workflowIdReusePolicy: "REJECT_DUPLICATE", // an ended session stays ended
      staticSummary: `${this.agent} session ${this.id}`,
    });
    try {
      return await client.workflow.executeUpdateWithStart(sendUpdate, {
        args: [message],
        startWorkflowOperation: start,
      });
    } catch (error) {
      const typed = fromFailure(error);
      // An ended session's id is not reused: a send after the end finds its closed workflow, or the session's own refusal.
      if (error instanceof WorkflowExecutionAlreadyStartedError || SessionEndedError.isInstance(typed))
        throw new SessionEndedError(this.workflowId);
      throw typed ?? error;
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

  private async client(): Promise<Client> {
    return this.options.client ?? getDefaultClient();
  }
}
