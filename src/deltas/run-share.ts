/**
 * A run's durable events shared across processes, internal to the Redis transport: one process
 * holds the run's lease, reads Temporal and publishes each durable event it reads; the processes
 * without the lease read them from Redis. So Temporal sees one reader per run, not one per process.
 */
import type { LoadedDataConverter } from "@temporalio/common";
import type { RunEvent } from "../core/run-events.js";

/** A durable event with its offset in the run's stream. */
export type OffsetEvent = RunEvent & { offset: number };

/** What the lease of a run's reading says after a `lead()`. */
export interface RunLease {
  /** This process holds the lease: it reads Temporal and publishes what it reads. */
  readonly leading: boolean;
  /** The run chain (its first run id) the holder reads, once the holder knows it. */
  readonly chain: string | undefined;
}

/** A run's durable events as the processes that watch it share them. Every call rejects when Redis goes down meanwhile (then read Temporal alone). */
export interface RunShare {
  /** Redis can be used now; while false (and not `starting`), read Temporal alone. */
  readonly up: boolean;
  /** Still connecting for the first time: `onChange` says when it is up or down. */
  readonly starting: boolean;
  /** The lease was taken, named its chain or was released since the last `lead()`: ask again now. */
  readonly leaseNews: boolean;
  /** Takes the run's lease if nobody holds it, or renews it if this process does (naming `chain` once known). */
  lead(chain: string | undefined): Promise<RunLease>;
  /** The lease holder publishes durable events of run chain `chain` that it read from Temporal (with `run.finished`, it gives the lease up). */
  publish(chain: string, events: OffsetEvent[]): Promise<void>;
  /**
   * The durable events of chain `chain` from `fromOffset` that Redis holds (received, or read from
   * the log), in order of offset; the first may be past `fromOffset` (a gap: read it from
   * Temporal). Empty when none came since the last call.
   */
  read(chain: string, fromOffset: number): Promise<OffsetEvent[]>;
  /** Gives the lease up (if this process holds it), and tells the other processes at once. */
  release(): Promise<void>;
  /** Stops sharing (after `release` for a holder). */
  close(): void;
}

/** Makes a run's share: `onChange` is called when events or lease news arrived, and when Redis went down or came back. */
export type ShareRun = (workflowId: string, converter: LoadedDataConverter, onChange: () => void) => RunShare;
