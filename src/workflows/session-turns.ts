/**
 * A session's messages ("turns"): each one's status, where its events start in the session's
 * stream and where its messages start in the conversation (the `session-turns` query), and the
 * `cancel-message` Update that stops the one being answered. Plain state: nothing here adds a
 * history event. Workflow-safe.
 */
import {
  ApplicationFailure,
  condition,
  currentUpdateInfo,
  setHandler,
  type CancellationScope,
} from "@temporalio/workflow";
import type { Approvals } from "./approval-waits.js";
import type { StopReason } from "../core/types.js";
import { cancelMessageUpdate, sessionTurnsQuery, type SessionTurn } from "./definitions.js";
import type { RunEventPublisher } from "./run-event-publisher.js";

/** A message's status once it has ended. */
const ENDED = new Set<SessionTurn["status"]>(["answered", "failed", "cancelled"]);
/**
 * How many of the session's last messages a send retried after continue-as-new is looked for in.
 * A retry comes soon after its request (an MCP client's request times out in 60 s), and at most
 * 10 Updates are in flight per workflow: 64 covers those with room, while a request id a client
 * uses again much later (a new connection's ids start again) is not taken for a retry.
 */
const REPEAT_WINDOW = 64;

/** The session's messages, and the one being answered with the scope that stops it. */
export class SessionTurnList {
  readonly #turns: SessionTurn[];
  #current: { turn: SessionTurn; scope: CancellationScope } | undefined;
  /** The index of this run's first message: the ones before came with the run's input. */
  readonly #firstOfRun: number;

  constructor(
    carried: SessionTurn[] | undefined,
    private readonly events: RunEventPublisher,
    private readonly approvals: Approvals,
  ) {
    this.#turns = carried ? carried.map((turn) => ({ ...turn })) : [];
    this.#firstOfRun = (this.#turns.at(-1)?.index ?? -1) + 1;
    setHandler(sessionTurnsQuery, () => ({
      turns: this.#turns.map((turn) =>
        turn === this.#current?.turn && this.approvals.anyWaiting ? { ...turn, status: "waiting-for-approval" } : turn,
      ),
      nextOffset: this.events.nextOffset(),
    }));
    setHandler(
      cancelMessageUpdate,
      async (index) => {
        const current = this.#current;
        if (!current || (index !== null && index !== current.turn.index)) return null;
        current.scope.cancel();
        await condition(() => ENDED.has(current.turn.status));
        return current.turn.index;
      },
      {
        validator: (index: number | null) => {
          if (index !== null && (!Number.isInteger(index) || index < 0))
            throw ApplicationFailure.nonRetryable("cancel-message takes a message index (a non-negative integer)");
        },
      },
    );
  }

  /** The messages to carry across continue-as-new. */
  get all(): SessionTurn[] {
    return this.#turns;
  }

  /** The message queued or being answered, if any. */
  get busy(): SessionTurn | undefined {
    return this.#turns.find((turn) => !ENDED.has(turn.status));
  }

  /**
   * The message an earlier run of the session took with this Update id, among its last REPEAT_WINDOW
   * messages: the same send again after continue-as-new (Temporal knows the Update ids of this run only).
   */
  fromEarlierRun(updateId: string | undefined): SessionTurn | undefined {
    if (!updateId) return undefined;
    return this.#turns
      .slice(-REPEAT_WINDOW)
      .find((turn) => turn.index < this.#firstOfRun && turn.updateId === updateId);
  }

  /** A message taken by the `send` Update that is running now: queued behind the ones before it. */
  queued(regenerates?: number): SessionTurn {
    const turn: SessionTurn = {
      index: (this.#turns.at(-1)?.index ?? -1) + 1,
      status: "queued",
      updateId: currentUpdateInfo()?.id ?? "",
      ...(regenerates === undefined ? {} : { regenerates }),
    };
    this.#turns.push(turn);
    return turn;
  }

  /** The message's answer starts: its events from the stream's next offset, its messages from `messagesFrom`. */
  started(turn: SessionTurn, messagesFrom: number, scope: CancellationScope): void {
    Object.assign(turn, { status: "answering", fromOffset: this.events.nextOffset(), messagesFrom });
    this.#current = { turn, scope };
  }

  /** The message has ended: answered (any stopReason but "cancelled"), cancelled, or failed with a typed error. */
  ended(
    turn: SessionTurn,
    messagesTo: number,
    outcome: { stopReason: StopReason } | { error: { name: string; message: string } },
  ): void {
    if ("error" in outcome) Object.assign(turn, { status: "failed", error: outcome.error, messagesTo });
    else
      Object.assign(turn, {
        status: outcome.stopReason === "cancelled" ? "cancelled" : "answered",
        stopReason: outcome.stopReason,
        messagesTo,
      });
    if (this.#current?.turn === turn) this.#current = undefined;
  }
}
