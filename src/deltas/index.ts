/**
 * Delta transports: how the text of an answer in flight reaches a run's watchers. The default,
 * `heartbeatDeltas()`, needs no extra server: watchers read the model call's heartbeats with
 * `describe()`. `redisDeltas()` carries the deltas through Redis, so Temporal sees no read for
 * them, and has one process read each run's durable events from Temporal for all the processes
 * that watch it (`runSharing`). The worker takes one (`ai.worker({ deltas })`), and so does each
 * client (`ai.connect({ deltas })`, kept per Temporal client); with neither,
 * `DURABLE_AGENT_REDIS_URL` set means Redis at that URL.
 */
import type { Client } from "@temporalio/client";
import type { DeltaTransport } from "./delta-transport.js";
import { redisDeltas } from "./redis-deltas.js";

export type { AnswerOf, AnswerPublisher, AnswerWatch, DeltaTransport, PublishContext } from "./delta-transport.js";
export { redisDeltas, runSharing, type RedisDeltasOptions, type DeltaLogger } from "./redis-deltas.js";
export type { OffsetEvent, RunLease, RunShare, ShareRun } from "./run-share.js";

const HEARTBEATS: DeltaTransport = {
  kind: "heartbeats",
  load: () => Promise.resolve(),
  publishAnswer: () => undefined,
  watchAnswers: () => undefined,
  close: () => Promise.resolve(),
};

/** The default delta transport: the model call's heartbeats, which watchers read with `describe()` (no extra server). */
export function heartbeatDeltas(): DeltaTransport {
  return HEARTBEATS;
}

/** The transport of each client given one (`ai.connect({ deltas })`). */
const byClient = new WeakMap<Client, DeltaTransport>();
/** The transports `DURABLE_AGENT_REDIS_URL` named, one per URL in a process. */
const fromEnv = new Map<string, DeltaTransport>();

/** The transport named by the environment: Redis at `DURABLE_AGENT_REDIS_URL` when it is set, else heartbeats. */
export function deltasFromEnv(env: NodeJS.ProcessEnv = process.env): DeltaTransport {
  const url = env.DURABLE_AGENT_REDIS_URL;
  if (!url) return HEARTBEATS;
  let transport = fromEnv.get(url);
  if (!transport) fromEnv.set(url, (transport = redisDeltas({ url })));
  return transport;
}

/** Makes `transport` the one the client's run readers use. */
export function useDeltas(client: Client, transport: DeltaTransport): void {
  byClient.set(client, transport);
}

/** The transport of a client's run readers: its own, else the environment's. */
export function deltasOf(client: Client): DeltaTransport {
  return byClient.get(client) ?? deltasFromEnv();
}
