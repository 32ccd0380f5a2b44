/**
 * A client process's own count of its Temporal calls, by method, with a gRPC interceptor placed
 * inside the SDK's retry interceptor (each attempt counted, a RESOURCE_EXHAUSTED rejection too).
 */
import { InterceptingCall, status, type Interceptor } from "@grpc/grpc-js";

/** Calls by method name, and calls answered RESOURCE_EXHAUSTED (a full query buffer, the namespace's rate limit). */
export interface CallCounts {
  calls: Record<string, number>;
  rejected: number;
}

/** The method name of a gRPC path (`/temporal.api.workflowservice.v1.WorkflowService/QueryWorkflow` → `QueryWorkflow`). */
export const methodOf = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/** An interceptor that adds each call to `counts`. */
export function countingInterceptor(counts: CallCounts): Interceptor {
  return (options, nextCall) => {
    const method = methodOf(options.method_definition.path);
    counts.calls[method] = (counts.calls[method] ?? 0) + 1;
    return new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        next(metadata, {
          onReceiveStatus(callStatus, nextStatus) {
            if (callStatus.code === status.RESOURCE_EXHAUSTED) counts.rejected += 1;
            nextStatus(callStatus);
          },
        });
      },
    });
  };
}

/** An interceptor that keeps, by method, the calls that started and have not returned (a long poll is in flight until it returns). */
export function inFlightInterceptor(inFlight: Record<string, number>): Interceptor {
  return (options, nextCall) => {
    const method = methodOf(options.method_definition.path);
    inFlight[method] = (inFlight[method] ?? 0) + 1;
    return new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        next(metadata, {
          onReceiveStatus(callStatus, nextStatus) {
            inFlight[method] = (inFlight[method] ?? 0) - 1;
            nextStatus(callStatus);
          },
        });
      },
    });
  };
}
