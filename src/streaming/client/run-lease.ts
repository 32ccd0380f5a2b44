/**
 * A reader's side of its run's lease in Redis (`RunShare`): one reader per run across processes
 * holds it, reads Temporal and publishes each durable event it reads; the others follow it
 * (`share-follower.ts`), and take it over when its holder stops renewing it.
 */
import type { RunShare } from "../../deltas/index.js";
import type { DurableEvent } from "./durable-tail.js";

/** How often the run's lease in Redis is renewed by its holder, and asked for by the other processes' readers. */
export const LEASE_RENEW_MS = 1_000;

/** What `RunShare.lead` answers: whether this reader holds the lease, and the run chain it names. */
type LeaseAnswer = Awaited<ReturnType<RunShare["lead"]>>;

/** One reader's view of its run's lease. */
export class ReaderLease {
  /** This reader holds the lease: what it reads from Temporal it publishes, for run chain `chain`. */
  leading = false;
  chain: string | undefined;
  /**
   * A run chain whose log already held `run.finished` when this reader came to follow it: a lease
   * naming it is stale (its holder died), and the run wanted may be a newer one of the workflow
   * id, so this reader reads Temporal itself rather than follow it.
   */
  endedChain: string | undefined;
  readonly #timer: ReturnType<typeof setInterval>;

  constructor(
    readonly share: RunShare,
    wake: () => void,
  ) {
    // Renews or asks for the lease; it also keeps the process alive while the reader follows
    // through Redis (whose connections do not), as its history long poll does otherwise.
    this.#timer = setInterval(wake, LEASE_RENEW_MS);
  }

  /** Whether a lease answer sends this reader to Temporal: it holds the lease, or the lease names a chain that had ended. */
  readsTemporal(lease: LeaseAnswer): boolean {
    return lease.leading || (lease.chain !== undefined && lease.chain === this.endedChain);
  }

  /** How to start, once the share is up or down: following the lease holder if another process holds it, else from Temporal. */
  async firstMode(): Promise<"temporal" | "follow"> {
    if (!this.share.up) return "temporal";
    try {
      return (await this.share.lead(undefined)).leading ? "temporal" : "follow";
    } catch {
      return "temporal"; // Redis went down meanwhile: read alone
    }
  }

  /** Takes or renews the lease (naming the chain once known): false when another process holds it. */
  async hold(chain: string | undefined): Promise<boolean> {
    try {
      const lease = await this.share.lead(chain);
      this.leading = lease.leading;
      this.chain = chain;
      return this.readsTemporal(lease);
    } catch {
      this.leading = false;
      return true;
    }
  }

  /** Publishes durable events read from Temporal to the other processes, while this reader holds the lease. */
  async publish(events: DurableEvent[]): Promise<void> {
    const chain = this.chain;
    if (this.leading && chain && this.share.up && events.length > 0)
      await this.share.publish(chain, events).catch(() => undefined); // Redis went down: the others read Temporal
  }

  /** Gives the lease up (the next reader takes it at once) and closes the share. */
  close(): void {
    clearInterval(this.#timer);
    void this.share.release().catch(() => undefined);
    this.share.close();
  }
}
