/** What a delta transport is: how the answer in flight goes from the worker that produces it to the processes that watch its run. */
import type { LoadedDataConverter } from "@temporalio/common";
import type { PartialAnswer } from "../core/run-events.js";

/**
 * How the text of an answer in flight reaches a run's watchers. The model call always heartbeats
 * its answer (what `describe()` reads, the fallback); a transport may carry it too, so that
 * watchers read it without asking Temporal. `heartbeatDeltas()` is the default (no extra server),
 * `redisDeltas()` carries it through Redis.
 */
export interface DeltaTransport {
  /** What carries the deltas: `"heartbeats"` or `"redis"`. */
  readonly kind: string;
  /**
   * Loads what the transport needs (node-redis for Redis): rejects with a typed error when it
   * cannot work at all (`RedisClientMissingError`). It does not wait for a server: one that is
   * down is a fallback to the heartbeats, with a warning, not an error.
   */
  load(): Promise<void>;
  /**
   * Worker side: a publisher of one answer attempt of run `workflowId` as it grows, its chunks
   * encoded with the worker's data converter; none when the heartbeats alone carry the answer.
   */
  publishAnswer(answer: AnswerOf, worker: PublishContext): AnswerPublisher | undefined;
  /**
   * Client side: the partial answers of run `workflowId`, decoded with the client's data
   * converter; `onChange` is called when a newer one arrived or the transport went down or came
   * back. None when the watcher reads the heartbeats.
   */
  watchAnswers(workflowId: string, converter: LoadedDataConverter, onChange: () => void): AnswerWatch | undefined;
  /** Closes the transport's connections (a worker or web server shutting down). */
  close(): Promise<void>;
}

/** One answer attempt: the run, the trip and the model call's attempt. */
export interface AnswerOf {
  readonly workflowId: string;
  readonly trip: number;
  readonly attempt: number;
}

/** What a publisher needs from the worker: its data converter and where its warnings go. */
export interface PublishContext {
  readonly converter: LoadedDataConverter;
  /** Logs a warning on the worker (a publish failed: the heartbeats still carry the answer). */
  warn(message: string): void;
}

/** Publishes one answer attempt's text (and its reasoning) as it grows. It never throws: a failed publish leaves the answer to the heartbeats. */
export interface AnswerPublisher {
  /** The model produced `text`: the answer so far ends with it. */
  add(text: string): void;
  /**
   * The model produced reasoning `text` (before the answer's text): the reasoning so far ends with
   * it. A publisher without it carries no reasoning: its watchers get no `reasoning.delta`.
   */
  addReasoning?(text: string): void;
  /**
   * The answer is complete (or failed): publish what is left, then forget it. The model call
   * waits for a returned promise (at most a moment) before it completes, so that watchers get the
   * answer's last text from the transport before its `model.answered`.
   */
  close(): void | Promise<void>;
}

/** A run's partial answers as a transport delivers them. */
export interface AnswerWatch {
  /** The transport delivers now; while false (and not `starting`), read the heartbeats. */
  readonly up: boolean;
  /** Still connecting for the first time: wait for it (`onChange` says when it is up or down) rather than read the heartbeats. */
  readonly starting: boolean;
  /** The newest attempt's answer so far (from 0, or from where a gap ended), if any arrived. */
  readonly latest: PartialAnswer | undefined;
  /** Stops watching. */
  close(): void;
}
