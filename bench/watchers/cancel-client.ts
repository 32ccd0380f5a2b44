/**
 * The client process of `npm run bench:watchers`' cancel rows: `node --expose-gc --import tsx
 * --conditions=durable-agent-source bench/watchers/cancel-client.ts <address> <workflow id>
 * <watchers> <streams>`. W watchers of the run connect (each reads its first bytes or event) and
 * let go, all at once, in a loop, until `streams` streams were cancelled: half cancel their SSE
 * response's body (a closed tab), half call `return()` on their iterator. It prints one JSON line:
 * the history calls (and all calls) in flight 1 s after the last cancel, and its RSS and JS heap
 * after a warm-up (a tenth of the streams, at least 1,000) and after the last stream (both after a GC). With
 * BENCH_CANCEL_TRACE set it prints both on stderr after each tenth.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from "@temporalio/client";
import { ai, type RunHandle } from "../../src/index.js";
import { countingInterceptor, inFlightInterceptor, type CallCounts } from "./call-counter.js";

/** What the cancel loop measured. */
export interface CancelOutcome {
  streams: number;
  ms: number;
  historyInFlightAfter1s: number;
  callsInFlightAfter1s: number;
  historyCalls: number;
  rssStartMB: number;
  rssEndMB: number;
  /** The JS heap in use (after a GC), at the same two points. */
  heapStartMB: number;
  heapEndMB: number;
}

const [address, workflowId, watchersText, streamsText] = process.argv.slice(2) as [string, string, string, string];
const watchers = Number(watchersText);
const streams = Number(streamsText);
const inFlight: Record<string, number> = {};
const counts: CallCounts = { calls: {}, rejected: 0 };
const connection = await Connection.connect({
  address,
  interceptors: [
    makeGrpcRetryInterceptor(defaultGrpcRetryOptions()),
    countingInterceptor(counts),
    inFlightInterceptor(inFlight),
  ],
});
const client = new Client({ connection });
const run = await ai.getRun(workflowId, { client });

/** One watcher that connects and lets go: by its SSE response's body, or by its iterator's `return()`. */
async function connectAndCancel(handle: RunHandle, sse: boolean): Promise<void> {
  if (sse) {
    const reader = handle.stream().toSSEResponse().body!.getReader();
    await reader.read();
    await reader.cancel();
  } else {
    const iterator = handle.stream()[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.return!();
  }
}

/** `count` streams, W at a time. */
async function loop(count: number): Promise<void> {
  for (let done = 0; done < count; done += watchers)
    await Promise.all(
      Array.from({ length: Math.min(watchers, count - done) }, (_v, i) => connectAndCancel(run, i % 2 === 0)),
    );
}

const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
const heap = () => {
  global.gc?.();
  return Math.round((process.memoryUsage().heapUsed / 2 ** 20) * 10) / 10;
};
const rss = () => {
  global.gc?.();
  return Math.round((process.memoryUsage().rss / 2 ** 20) * 10) / 10;
};
// Warm-up: modules loaded and compiled, the connection's buffers and the allocator's arenas grown. At
// least 1,000 streams: after 100 (--quick's tenth) RSS still rose by 20-37 MB with the JS heap flat,
// while after 1,000 a loop of 10,000 moved it by under 2 MB.
await loop(Math.max(watchers * 10, Math.round(streams / 10), 1_000));
const rssStartMB = rss();
const heapStartMB = heap();
const startedAt = Date.now();
for (let part = 0; part < 10; part++) {
  await loop(Math.round(streams / 10));
  if (process.env.BENCH_CANCEL_TRACE)
    console.error(
      `cancel-client: ${(part + 1) * 10}%: rss ${rss()} MB, heap ${heap()} MB, external ${mb(process.memoryUsage().external)} MB, array buffers ${mb(process.memoryUsage().arrayBuffers)} MB`,
    );
}
const ms = Date.now() - startedAt;
await sleep(1_000);
const outcome: CancelOutcome = {
  streams,
  ms,
  historyInFlightAfter1s: inFlight.GetWorkflowExecutionHistory ?? 0,
  callsInFlightAfter1s: Object.values(inFlight).reduce((a, b) => a + b, 0),
  historyCalls: counts.calls.GetWorkflowExecutionHistory ?? 0,
  rssStartMB,
  rssEndMB: rss(),
  heapStartMB,
  heapEndMB: heap(),
};
process.stdout.write(`${JSON.stringify(outcome)}\n`);
await connection.close();
