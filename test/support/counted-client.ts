/**
 * A real Temporal client whose gRPC calls are counted, call by call, by a gRPC interceptor placed
 * inside the SDK's retry interceptor: every attempt is seen, and so is every rejection
 * (RESOURCE_EXHAUSTED: a full query buffer, or the namespace's rate limit) that the SDK retries.
 */
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from "@temporalio/client";
import type { DataConverter } from "@temporalio/common";
import { useDeltas, type DeltaTransport } from "../../src/deltas/index.js";
import { InterceptingCall, status, type Interceptor } from "@grpc/grpc-js";

/** What a counted client sent, and how it was answered. */
export interface CallCounts {
  /** Calls by method name (`DescribeWorkflowExecution`, `QueryWorkflow`, `GetWorkflowExecutionHistory`, ...). */
  readonly calls: Map<string, number>;
  /** Calls answered RESOURCE_EXHAUSTED, by method name. */
  readonly rejected: Map<string, number>;
  /** Calls of `method` that started and have not returned. */
  pending(method: string): number;
  /** Resolves when the next call of `method` starts. */
  nextStart(method: string): Promise<void>;
  /** Resolves when the next call of `method` returns. */
  nextEnd(method: string): Promise<void>;
  /** Calls of `method` so far. */
  count(method: string): number;
  /** Rejections of any method so far. */
  rejections(): number;
}

/** A counted client, its counts, and how to close its connection. */
export interface CountedClient {
  client: Client;
  counts: CallCounts;
  close(): Promise<void>;
}

/** Connects a client to `address` that counts its calls (with a data converter and a delta transport, if given). */
export async function connectCountedClient(
  address: string,
  options: { dataConverter?: DataConverter; deltas?: DeltaTransport } = {},
): Promise<CountedClient> {
  const calls = new Map<string, number>();
  const rejected = new Map<string, number>();
  const inFlight = new Map<string, number>();
  const waiting: Array<{ method: string; on: "start" | "end"; resolve: () => void }> = [];
  const bump = (map: Map<string, number>, method: string, by = 1) => map.set(method, (map.get(method) ?? 0) + by);
  const notify = (method: string, on: "start" | "end") => {
    for (const waiter of waiting.filter((w) => w.method === method && w.on === on)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const counter: Interceptor = (options, nextCall) => {
    const method = options.method_definition.path.split("/").pop()!;
    bump(calls, method);
    bump(inFlight, method);
    notify(method, "start");
    return new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        next(metadata, {
          onReceiveStatus(callStatus, nextStatus) {
            if (callStatus.code === status.RESOURCE_EXHAUSTED) bump(rejected, method);
            bump(inFlight, method, -1);
            notify(method, "end");
            nextStatus(callStatus);
          },
        });
      },
    });
  };
  const connection = await Connection.connect({
    address,
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), counter],
  });
  const wait = (method: string, on: "start" | "end") =>
    new Promise<void>((resolve) => waiting.push({ method, on, resolve }));
  const client = new Client({ connection, ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}) });
  if (options.deltas) useDeltas(client, options.deltas);
  return {
    client,
    counts: {
      calls,
      rejected,
      pending: (method) => inFlight.get(method) ?? 0,
      nextStart: (method) => wait(method, "start"),
      nextEnd: (method) => wait(method, "end"),
      count: (method) => calls.get(method) ?? 0,
      rejections: () => [...rejected.values()].reduce((a, b) => a + b, 0),
    },
    close: () => connection.close(),
  };
}
