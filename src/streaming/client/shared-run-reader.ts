/**
 * One reader of a run for every watcher of it in this process. It learns of new durable events by
 * long-polling the run's history (no request while the run waits), reads them with the
 * `run-events-tail` query only once a workflow task completed, and hands out the answer in flight
 * only while the history shows a `model.call` under way: from the client's delta transport
 * (Redis: no request) while it is up, else from the model call's heartbeat details, read with
 * `describe()`. What it reads it hands to every watcher's queue, in order.
 *
 * With the Redis transport, one reader per run across processes: the reader that holds the run's
 * lease in Redis (`run-lease.ts`) reads Temporal as above and publishes each durable event it
 * reads; the readers of other processes follow them from Redis (`share-follower.ts`, reading from
 * Temporal only a gap Redis lacks), and take the lease over when its holder stops renewing it.
 * While Redis is down every reader reads Temporal itself, and goes back to the lease when Redis is back.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Client, WorkflowExecutionDescription } from "@temporalio/client";
import { completeResult } from "../../run-reads/index.js";
import { partialAnswerOf, pendingModelCallAttempt } from "./answer-deltas.js";
import type { PartialAnswer, RunEvent, StreamedRunEvent } from "../../core/run-events.js";
import { deltasOf, runSharing, type AnswerWatch } from "../../deltas/index.js";
import { LEASE_RENEW_MS, ReaderLease } from "./run-lease.js";
import { ShareFollower, type FollowedReader, type ReadMode } from "./share-follower.js";
import { loadTemporalClient } from "../../run-reads/index.js";
import { eventDecoder, readDurableTail, type DurableEvent } from "./durable-tail.js";
import { HistoryFollower } from "./history-follower.js";
import { abortableCall } from "./abortable-call.js";
import { WatcherQueue, type ReaderItem } from "./watcher-queue.js";

/** Pause between reads of the answer in flight (one `describe()` each): the latency of text deltas. */
const ANSWER_PAUSE_MS = 40;
/** Failed reads back off from ANSWER_PAUSE_MS, doubling up to this pause. */
const MAX_RETRY_PAUSE_MS = 2_000;
/**
 * Reads that may fail in a row (a worker restarting, a server outage) before the reader gives up
 * with the last error: with the backoff, about 3 minutes.
 */
const MAX_READ_FAILURES = 100;
/** How long a closed run's last events are asked for while no worker answers (one restarting) before the result alone ends the stream. */
const CLOSED_TAIL_PATIENCE_MS = 30_000;
/**
 * While a tool call (or another activity than the model's) is under way, how long after the
 * history last grew the durable events are read: most such calls end within it, and a workflow
 * task follows, during which a query would wait in the server's one-query buffer (and other
 * processes' queries would be rejected). A slower call's `tool.started` comes this late.
 */
const QUIET_AFTER_MS = 250;
/** Durable events kept for watchers that join later; one that starts further back reads its own catch-up. */
const KEPT_EVENTS = 256;

/** The pause after the `failures`-th failed read in a row. */
const retryPause = (failures: number) =>
  Math.min(MAX_RETRY_PAUSE_MS, ANSWER_PAUSE_MS * 2 ** Math.min(failures - 1, 16));

/** A run's reader, shared by its watchers in this process. */
export class SharedRunReader {
  readonly #watchers = new Set<WatcherQueue>();
  /** Durable events handed out, from offset `#keptFrom`. */
  readonly #kept: StreamedRunEvent[] = [];
  #keptFrom: number;
  /** The next durable event's offset. */
  #next: number;
  /** The last item, once the reader ended with `closed` or `failed`. */
  #end: ReaderItem | undefined;
  /** The highest attempt of each trip whose `trip.retry` the reader has read past. */
  readonly #retried = new Map<number, number>();
  readonly #abort = new AbortController();
  #changed: (() => void) | undefined;
  #decode!: (data: string) => RunEvent;
  /** The answer in flight as the client's delta transport delivers it (none: heartbeats only). */
  #live: AnswerWatch | undefined;
  /** The last partial answer handed out. */
  #handed: PartialAnswer | undefined;
  /** The run's lease, when the transport shares the run's durable events with other processes (Redis). */
  #lease: ReaderLease | undefined;
  /** The reader started at the run's first event: it reads every `trip.retry`. */
  readonly #readsFromRunStart: boolean;
  /** The trips whose `trip.started` this reader handed out: it read every `trip.retry` of theirs. */
  readonly #tripsFromStart = new Set<number>();
  /** Whether each answer attempt (`trip.attempt`) the transport delivered, of a trip begun before this reader, was superseded. */
  readonly #verdicts = new Map<string, boolean>();
  /** The highest trip a durable event named (a follower hands out an answer only after its trip's events). */
  #trip = 0;

  constructor(
    private readonly client: Client,
    readonly workflowId: string,
    fromOffset: number,
    /** Called when the reader ended or its last watcher left: the registry forgets it. */
    private readonly onDone: (reader: SharedRunReader) => void,
  ) {
    this.#next = this.#keptFrom = fromOffset;
    this.#readsFromRunStart = fromOffset === 0;
    void this.#run();
  }

  /**
   * A new watcher from `fromOffset`: its queue, with the kept events it missed. `catchUpFrom` is
   * set when it starts before the kept events: it reads those itself (`catchUp`), then its queue.
   */
  join(fromOffset: number, limit: number): { queue: WatcherQueue; catchUpFrom?: number } {
    const queue: WatcherQueue = new WatcherQueue(limit, () => this.leave(queue));
    this.#watchers.add(queue);
    for (const event of this.#kept) if (event.offset >= fromOffset) queue.push({ type: "durable", event });
    return fromOffset < this.#keptFrom ? { queue, catchUpFrom: fromOffset } : { queue };
  }

  /** A watcher left; the last one to leave stops the reader. */
  leave(queue: WatcherQueue): void {
    if (!this.#watchers.delete(queue) || this.#watchers.size > 0) return;
    this.#abort.abort();
    this.#closeTransport();
    this.#changed?.();
    this.onDone(this);
  }

  /** The durable events from `fromOffset` for a watcher that joined behind the kept events. */
  async catchUp(fromOffset: number, signal: AbortSignal): Promise<DurableEvent[]> {
    const decode = await eventDecoder();
    const startedAt = Date.now();
    for (let failures = 1; ; failures++) {
      try {
        return await abortableCall(this.client, signal, () =>
          readDurableTail(this.client, this.workflowId, fromOffset, decode),
        );
      } catch (error) {
        if (signal.aborted) throw error;
        // A closed run's events need a worker to replay it: without one, the result alone ends the stream.
        if (this.#end?.type === "closed" && Date.now() - startedAt >= CLOSED_TAIL_PATIENCE_MS) return [];
        if (failures >= MAX_READ_FAILURES) throw error;
        await sleep(retryPause(failures), undefined, { signal });
      }
    }
  }

  get #stopped(): boolean {
    return this.#abort.signal.aborted;
  }

  async #run(): Promise<void> {
    try {
      this.#decode = await eventDecoder();
      const deltas = deltasOf(this.client);
      await deltas.load();
      if (this.#stopped) return;
      const converter = this.client.options.loadedDataConverter;
      const wake = () => this.#changed?.();
      this.#live = deltas.watchAnswers(this.workflowId, converter, wake);
      const share = runSharing(deltas)?.(this.workflowId, converter, wake);
      const lease = (this.#lease = share && new ReaderLease(share, wake));
      const follower = lease && new ShareFollower(this.#followed(), lease);
      for (let mode = await this.#firstMode(lease); mode !== "done" && !this.#stopped;) {
        mode = mode === "follow" ? await follower!.follow() : await this.#follow(lease);
      }
    } catch (error) {
      if (!this.#stopped) this.#finish({ type: "failed", error });
    }
  }

  /** How to start: following the run's lease holder if another process holds it, else from Temporal. */
  async #firstMode(lease: ReaderLease | undefined): Promise<ReadMode> {
    while (lease?.share.starting && !this.#stopped) await this.#nextChange();
    return lease ? lease.firstMode() : "temporal";
  }

  /** Resolves at the next change (the transport, the lease timer, a history batch, the reader stopping). */
  #nextChange(): Promise<void> {
    return new Promise<void>((resolve) => (this.#changed = resolve));
  }

  /** This reader as a follower of another process's lease sees it. */
  #followed(): FollowedReader {
    const reader = this; // eslint-disable-line @typescript-eslint/no-this-alias -- the follower reads the reader's private state
    return {
      get stopped() {
        return reader.#stopped;
      },
      get live() {
        return reader.#live;
      },
      get next() {
        return reader.#next;
      },
      get handed() {
        return reader.#handed;
      },
      get trip() {
        return reader.#trip;
      },
      noteTrip: (trip) => this.#noteTrip(trip),
      changed: () => this.#nextChange(),
      readDurable: () => this.#readDurable(),
      handDurable: (events) => this.#handDurable(events),
      readAnswerInFlight: () => this.#readAnswerInFlight(),
    };
  }

  /**
   * The reading loop from Temporal: durable events when a workflow task completed, the answer in
   * flight while a model call is under way. With a share, it holds the run's lease (publishing
   * what it reads) or, while Redis is down, reads alone; "follow" once another process holds it.
   */
  async #follow(lease: ReaderLease | undefined): Promise<ReadMode> {
    const { WorkflowNotFoundError } = await loadTemporalClient();
    const history = new HistoryFollower(this.client, this.workflowId);
    const state = history.state;
    const mode = new AbortController();
    const stop = () => mode.abort();
    this.#abort.signal.addEventListener("abort", stop, { once: true });
    let historyError: unknown;
    void this.#followHistory(history, WorkflowNotFoundError, mode.signal).catch((error: unknown) => {
      historyError = error;
      this.#changed?.();
    });
    let leaseDueAt = 0;
    try {
      for (let failures = 0; !this.#stopped;) {
        const changed = this.#nextChange();
        if (historyError) throw historyError;
        if (lease && !lease.share.up) lease.leading = false; // Redis is down: read alone, publish nothing
        // Again while the history's first page, come meanwhile, named a chain not named in the
        // lease yet: the durable events read next are published for it.
        while (
          lease?.share.up &&
          (lease.share.leaseNews || Date.now() >= leaseDueAt || (lease.leading && state.chain !== lease.chain))
        ) {
          leaseDueAt = Date.now() + LEASE_RENEW_MS;
          if (!(await lease.hold(state.chain))) return "follow";
        }
        const next = await this.#readTemporal(state, changed, failures, WorkflowNotFoundError);
        if (next === "done") return "done";
        failures = next;
      }
      return "done";
    } finally {
      mode.abort();
      this.#abort.signal.removeEventListener("abort", stop);
      if (lease) lease.leading = false;
    }
  }

  /** One step of reading from Temporal; the failures in a row after it, or "done". */
  async #readTemporal(
    state: HistoryFollower["state"],
    changed: Promise<void>,
    failures: number,
    notFound: new (...args: never[]) => Error,
  ): Promise<number | "done"> {
    try {
      // A query while a workflow task is in flight waits in the server's buffer of one query per
      // run, and the readers of other processes' queries are then rejected: read at quiet points.
      const settling = state.openOtherActivities.size > 0 ? QUIET_AFTER_MS - (Date.now() - state.grewAt) : 0;
      if (state.durableMayHaveGrown && !state.workflowTaskInFlight && settling > 0 && !state.closed) {
        await Promise.race([changed, this.#pause(settling)]);
        return failures;
      }
      if (state.durableMayHaveGrown && !state.workflowTaskInFlight) {
        if (state.closed) {
          await this.#readClosedRun();
          return "done";
        }
        state.durableMayHaveGrown = false;
        try {
          if (await this.#readDurable()) return "done";
        } catch (error) {
          state.durableMayHaveGrown = true;
          throw error;
        }
      }
      if (state.openModelCalls.size > 0) {
        if (await this.#readAnswerInFlight()) return "done";
        // The transport wakes the loop when the answer grows (or it goes down); heartbeats are read again after a pause.
        const fromTransport = this.#live?.up || this.#live?.starting;
        await (fromTransport ? changed : Promise.race([changed, this.#pause(ANSWER_PAUSE_MS)]));
      } else {
        await changed;
      }
      return 0;
    } catch (error) {
      // No worker answers yet (one restarting), or the server cannot be reached: read again.
      if (this.#stopped) return "done";
      if (error instanceof notFound || ++failures > MAX_READ_FAILURES) throw error;
      await this.#pause(retryPause(failures));
      return failures;
    }
  }

  #noteTrip(trip: number): void {
    if (trip > this.#trip) this.#trip = trip;
  }

  /** What a durable event handed out tells of the run's trips: the highest, those begun in view, and their retried attempts. */
  #noteEvent(event: StreamedRunEvent): void {
    if ("trip" in event && typeof event.trip === "number") this.#noteTrip(event.trip);
    if (event.type === "trip.started") this.#tripsFromStart.add(event.trip);
    if (event.type === "trip.retry")
      this.#retried.set(event.trip, Math.max(event.attempt, this.#retried.get(event.trip) ?? 1));
  }

  /** Long polls the history until the run closes (or the reader stops), waking the reading loop after each batch. */
  async #followHistory(
    history: HistoryFollower,
    notFound: new (...args: never[]) => Error,
    signal: AbortSignal,
  ): Promise<void> {
    for (let failures = 0; !signal.aborted && !history.state.closed;) {
      try {
        await history.next(signal);
        failures = 0;
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof notFound || ++failures > MAX_READ_FAILURES) throw error;
        await this.#pause(retryPause(failures));
        continue;
      }
      this.#changed?.();
    }
  }

  /**
   * Reads the durable events after the last one from Temporal; true when the run's `run.finished`
   * was among them. The lease holder publishes them to the other processes first.
   */
  async #readDurable(): Promise<boolean> {
    const events = await abortableCall(this.client, this.#abort.signal, () =>
      readDurableTail(this.client, this.workflowId, this.#next, this.#decode),
    );
    await this.#lease?.publish(events);
    return this.#handDurable(events);
  }

  /** Hands out durable events in order; true once `run.finished` was handed out (the reader's end). */
  async #handDurable(events: DurableEvent[]): Promise<boolean> {
    for (const event of events) {
      if (event.offset < this.#next) continue;
      this.#noteEvent(event);
      if (event.type === "run.finished") {
        const finished = { ...event, result: await completeResult(this.client, event.result) };
        this.#handOut({ type: "durable", event: finished });
        this.#finish(undefined);
        return true;
      }
      this.#handOut({ type: "durable", event });
    }
    return false;
  }

  /**
   * Reads the answer in flight (from the delta transport while it is up, else with `describe()`)
   * and hands it out; a retried attempt's only after reading the durable events again (so its
   * `trip.retry` is handed out first). True if the run finished meanwhile.
   */
  async #readAnswerInFlight(): Promise<boolean> {
    if (this.#live?.starting) return false; // connecting to the transport: it says when it is up or down
    const fromTransport = this.#live?.up === true;
    const partial = fromTransport ? this.#live!.latest : await this.#describeAnswer();
    if (!partial || partial === this.#handed) return false;
    const superseded =
      partial.attempt < (this.#retried.get(partial.trip) ?? 1) ||
      (fromTransport && (await this.#supersededAttempt(partial)));
    this.#handed = partial;
    // A superseded attempt's text (its worker lived on, still publishing): no watcher shows it.
    if (superseded) return false;
    if (partial.attempt > (this.#retried.get(partial.trip) ?? 1)) {
      // The events read now were written after this description: its trip.retry is among them, or before every watcher's offset.
      if (await this.#readDurable()) return true;
      this.#retried.set(partial.trip, Math.max(partial.attempt, this.#retried.get(partial.trip) ?? 1));
    }
    this.#handOut({ type: "partial", partial, confirmed: partial.attempt <= (this.#retried.get(partial.trip) ?? 1) });
    return false;
  }

  /**
   * Whether the transport's answer attempt was superseded by a later one whose `trip.retry` this
   * reader did not read: it started after the trip began (a watcher resumed past the marker), and
   * the lost attempt's worker may still publish. Asked of the server once per attempt.
   */
  async #supersededAttempt({ trip, attempt }: PartialAnswer): Promise<boolean> {
    if (this.#readsFromRunStart || this.#tripsFromStart.has(trip)) return false;
    const key = `${trip}.${attempt}`;
    let verdict = this.#verdicts.get(key);
    if (verdict === undefined) {
      verdict = (pendingModelCallAttempt(await this.#describe()) ?? 0) > attempt;
      this.#verdicts.set(key, verdict);
    }
    return verdict;
  }

  /** The answer in flight in the model call's last heartbeat, read with `describe()`. */
  async #describeAnswer(): Promise<PartialAnswer | undefined> {
    return partialAnswerOf(await this.#describe(), this.client.options.loadedDataConverter);
  }

  /** The run's description, read with the reader's abort signal. */
  #describe(): Promise<WorkflowExecutionDescription> {
    const handle = this.client.workflow.getHandle(this.workflowId);
    return abortableCall(this.client, this.#abort.signal, () => handle.describe());
  }

  /**
   * The closed run's last events (the same query, answered by a worker replaying the run). A
   * worker may be restarting just then, so a failed query is tried again for
   * CLOSED_TAIL_PATIENCE_MS before the watchers end with the result alone.
   */
  async #readClosedRun(): Promise<void> {
    const giveUpAt = Date.now() + CLOSED_TAIL_PATIENCE_MS;
    for (let failures = 1; !this.#stopped; failures++) {
      try {
        if (await this.#readDurable()) return;
        break;
      } catch {
        if (Date.now() >= giveUpAt) break; // no worker to answer: the result alone still ends the stream
        await this.#pause(retryPause(failures));
      }
    }
    this.#finish({ type: "closed" });
  }

  #handOut(item: ReaderItem): void {
    if (item.type === "durable") {
      this.#next = item.event.offset + 1;
      this.#kept.push(item.event);
      if (this.#kept.length > KEPT_EVENTS) this.#keptFrom = this.#kept.shift()!.offset + 1;
    }
    for (const queue of this.#watchers) queue.push(item);
  }

  /**
   * The reader's end: `item` (if any) to every watcher. The registry forgets the reader at once,
   * so a later watcher reads afresh (a new run of the same workflow id, or after a failure).
   */
  #finish(item: ReaderItem | undefined): void {
    if (item) {
      this.#end = item;
      for (const queue of this.#watchers) queue.push(item);
    }
    this.#abort.abort();
    this.#closeTransport();
    this.onDone(this);
  }

  /** Stops watching the transport; gives the run's lease up (the next reader takes it at once). */
  #closeTransport(): void {
    this.#live?.close();
    this.#lease?.close();
  }

  /** Waits `ms`, or less if the reader stops. */
  #pause(ms: number): Promise<void> {
    return sleep(ms, undefined, { signal: this.#abort.signal }).catch(() => undefined);
  }
}
