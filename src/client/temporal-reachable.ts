/**
 * Bounds how long a request to an HTTP route waits to learn that Temporal is down. The Temporal
 * client retries a call that finds the server unreachable for about 20 s (ten attempts, backing
 * off to 5 s), which is right for a worker and wrong for a person waiting on a page. Before a
 * route's first call, a client whose gRPC channel is not connected is probed once, under a short
 * deadline; a connected one is not probed, so a route costs nothing more while Temporal is up.
 */
import type { Client } from "@temporalio/client";
import { DEFAULT_TEMPORAL_ADDRESS } from "../core/constants.js";
import { TemporalConnectionError } from "../errors.js";

/** How long a route waits for Temporal before it answers that the service is unavailable. */
export const TEMPORAL_PROBE_MS = 3_000;

/** gRPC status codes that mean the server could not be reached (UNAVAILABLE, DEADLINE_EXCEEDED). */
const UNREACHABLE_CODES = new Set([14, 4]);
/** grpc-js's `ConnectivityState.READY`. */
const CHANNEL_READY = 2;

/** The gRPC channel's state, where the connection exposes it (grpc-js's Client under Temporal's Connection). */
function channelState(client: Client): number | undefined {
  const grpc = (client.connection as unknown as { client?: { getChannel?: () => unknown } }).client;
  const channel = grpc?.getChannel?.() as { getConnectivityState?: (connect: boolean) => number } | undefined;
  return channel?.getConnectivityState?.(false);
}

/** The address the client talks to. */
export function temporalAddressOf(client: Client | undefined): string {
  const address = (client?.connection as { options?: { address?: string } } | undefined)?.options?.address;
  return address ?? process.env.TEMPORAL_ADDRESS ?? DEFAULT_TEMPORAL_ADDRESS;
}

/** True when the error, or one of its causes, is gRPC's "could not reach the server". */
export function isUnreachable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++)
    if (UNREACHABLE_CODES.has((e as { code?: unknown }).code as number)) return true;
  return false;
}

/** The error as a `TemporalConnectionError` naming the address when it says Temporal is unreachable; else itself. */
export function asConnectionError(error: unknown, address: string): unknown {
  if (TemporalConnectionError.isInstance(error) || !isUnreachable(error)) return error;
  return new TemporalConnectionError(address, error);
}

/**
 * Resolves at once while the client is connected; otherwise asks the server for its system info
 * under a deadline of `withinMs`, and throws `TemporalConnectionError` when it cannot be reached.
 */
export async function checkTemporalReachable(client: Client, withinMs = TEMPORAL_PROBE_MS): Promise<void> {
  if (channelState(client) === CHANNEL_READY) return;
  try {
    await client.withDeadline(Date.now() + withinMs, () => client.workflowService.getSystemInfo({}));
  } catch (error) {
    if (isUnreachable(error)) throw new TemporalConnectionError(temporalAddressOf(client), error);
    // Anything else (an old server without the call, a permission) is the route's own call's to meet.
  }
}

/**
 * The client a route talks through, given as one or as a promise of one (a first connection),
 * reachable within `withinMs` in all. A connection slower than that is a `TemporalConnectionError`
 * naming `address` (where the connection goes, as far as the caller knows); the connection's own
 * failure, when it comes, goes to the log.
 */
export async function reachableClient(
  client: Client | Promise<Client>,
  address: string,
  withinMs = TEMPORAL_PROBE_MS,
): Promise<Client> {
  const deadline = Date.now() + withinMs;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void Promise.resolve(client).catch((error: unknown) =>
        console.error("durable-agent: connecting to Temporal failed:", error),
      );
      reject(new TemporalConnectionError(address, new Error(`no connection within ${withinMs} ms`)));
    }, withinMs);
  });
  try {
    const connected = await Promise.race([client, late]);
    await checkTemporalReachable(connected, Math.max(1, deadline - Date.now()));
    return connected;
  } finally {
    clearTimeout(timer);
  }
}
