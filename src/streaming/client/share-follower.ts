/**
 * A reader that follows its run's lease holder in another process: the durable events the holder
 * publishes, read from Redis (a gap from Temporal), and the answer in flight from the delta
 * transport once its trip's events came.
 */
import type { AnswerWatch } from "../../deltas/index.js";
import type { PartialAnswer } from "../../core/run-events.js";
import type { DurableEvent } from "./durable-tail.js";
import { LEASE_RENEW_MS, type ReaderLease } from "./run-lease.js";

/** How a reader reads its run: from Temporal (holding the lease, or alone while Redis is down), or following the lease holder through Redis. */
export type ReadMode = "temporal" | "follow" | "done";

/** What the follower needs of its reader. */
export interface FollowedReader {
  readonly stopped: boolean;
  readonly live: AnswerWatch | undefined;
  /** The next durable event's offset. */
  readonly next: number;
  /** The last partial answer handed out. */
  readonly handed: PartialAnswer | undefined;
  /** The highest trip a durable event named (an answer goes out only after its trip's events). */
  readonly trip: number;
  noteTrip(trip: number): void;
  /** Resolves when something changed (the transport, the lease timer, the reader stopping). */
  changed(): Promise<void>;
  /** Reads the durable events after the last one from Temporal; true once `run.finished` was handed out. */
  readDurable(): Promise<boolean>;
  /** Hands durable events out in order; true once `run.finished` was handed out. */
  handDurable(events: DurableEvent[]): Promise<boolean>;
  /** Reads and hands out the answer in flight; true if the run finished meanwhile. */
  readAnswerInFlight(): Promise<boolean>;
}

/** Follows the lease holder until this reader should read Temporal ("temporal": it took the lease, or Redis went down) or the run ended. */
export class ShareFollower {
  /** The first read took what Redis holds before the reader's offset too (for `trip`). */
  #primed = false;

  constructor(
    private readonly reader: FollowedReader,
    private readonly lease: ReaderLease,
  ) {}

  /** Follows until the mode changes. */
  async follow(): Promise<ReadMode> {
    const { reader, lease } = this;
    const share = lease.share;
    let chain: string | undefined;
    let leaseDueAt = 0;
    while (!reader.stopped) {
      const changed = reader.changed();
      if (!share.up || !(reader.live?.up || reader.live?.starting)) return "temporal";
      try {
        const shared = chain ? await this.#readShared(chain) : undefined;
        if (shared) return shared;
        if (share.leaseNews || Date.now() >= leaseDueAt) {
          leaseDueAt = Date.now() + LEASE_RENEW_MS;
          const answer = await share.lead(undefined);
          if (lease.readsTemporal(answer)) return "temporal";
          if (answer.chain !== chain) {
            chain = answer.chain;
            continue; // read what the holder published of its chain
          }
        }
        const partial = reader.live?.up ? reader.live.latest : undefined;
        // An answer goes out after its trip's durable events (so after the last trip's model.answered).
        if (partial && partial !== reader.handed && partial.trip <= reader.trip && (await reader.readAnswerInFlight()))
          return "done";
      } catch {
        if (reader.stopped) return "done";
        return "temporal"; // Redis (or the gap's read) failed: read Temporal, and ask for the lease again from there
      }
      await changed;
    }
    return "done";
  }

  /**
   * Hands out the durable events the lease holder published (reading a gap from Temporal): "done"
   * once `run.finished` was handed out, "temporal" when the chain had ended before this reader
   * came (see `ReaderLease.endedChain`).
   */
  async #readShared(chain: string): Promise<ReadMode | undefined> {
    const { reader, lease } = this;
    for (;;) {
      // The first read takes what Redis holds before this reader's offset too: the trips it names.
      const priming = !this.#primed;
      const events = await lease.share.read(chain, priming ? 0 : reader.next);
      this.#primed = true;
      if (priming && events.some((event) => event.type === "run.finished")) {
        lease.endedChain = chain;
        return "temporal";
      }
      if (events.length === 0) return undefined;
      for (const event of events) if ("trip" in event && typeof event.trip === "number") reader.noteTrip(event.trip);
      const ahead = events.filter((event) => event.offset >= reader.next);
      if (ahead.length > 0 && ahead[0]!.offset > reader.next) return (await reader.readDurable()) ? "done" : undefined; // a gap: Redis lacks it
      if (await reader.handDurable(ahead)) return "done";
    }
  }
}
