/**
 * OpenTelemetry and Temporal's OpenTelemetry interceptors, loaded on the first telemetry call
 * (`telemetryClientInterceptors`, `telemetryWorkerOptions`, `ai.connect({ telemetry })`,
 * `ai.worker({ telemetry })`), not when the root is imported: they are some 150 modules that a
 * process without telemetry never needs. Those calls are synchronous, so the packages are
 * `require`d. They are CommonJS packages without an `import` condition, so Node gives an
 * `import` of them and this `require` the same module instances (and `@opentelemetry/api` keeps its
 * globals on `globalThis` in any case). webpack, when it targets Node, follows
 * `createRequire(import.meta.url)` calls like static requires that run when called.
 */
import { createRequire } from "node:module";
import type * as OpenTelemetryApi from "@opentelemetry/api";
import type * as ContextAsyncHooks from "@opentelemetry/context-async-hooks";
import type * as OpenTelemetryCore from "@opentelemetry/core";
import type * as OpenTelemetryResources from "@opentelemetry/resources";
import type * as SdkTraceBase from "@opentelemetry/sdk-trace-base";
import type * as TemporalClientInterceptors from "@temporalio/interceptors-opentelemetry/lib/client/index.js";
import type * as TemporalWorkerInterceptors from "@temporalio/interceptors-opentelemetry/lib/worker/index.js";

const require = createRequire(import.meta.url);

/** `@opentelemetry/api`. */
export function openTelemetryApi(): typeof OpenTelemetryApi {
  return require("@opentelemetry/api") as typeof OpenTelemetryApi;
}

/** What the default tracer and the context propagation are made of: the SDK's tracer provider, resource, context manager and W3C propagators. */
export function openTelemetrySdk(): Pick<typeof ContextAsyncHooks, "AsyncLocalStorageContextManager"> &
  Pick<typeof OpenTelemetryCore, "CompositePropagator" | "W3CBaggagePropagator" | "W3CTraceContextPropagator"> &
  Pick<typeof OpenTelemetryResources, "Resource"> &
  Pick<typeof SdkTraceBase, "BasicTracerProvider"> {
  const { AsyncLocalStorageContextManager } = require("@opentelemetry/context-async-hooks") as typeof ContextAsyncHooks;
  const { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } =
    require("@opentelemetry/core") as typeof OpenTelemetryCore;
  const { Resource } = require("@opentelemetry/resources") as typeof OpenTelemetryResources;
  const { BasicTracerProvider } = require("@opentelemetry/sdk-trace-base") as typeof SdkTraceBase;
  return {
    AsyncLocalStorageContextManager,
    CompositePropagator,
    W3CBaggagePropagator,
    W3CTraceContextPropagator,
    Resource,
    BasicTracerProvider,
  };
}

/** Temporal's OpenTelemetry client interceptor. */
export function temporalClientInterceptors(): typeof TemporalClientInterceptors {
  return require("@temporalio/interceptors-opentelemetry/lib/client/index.js") as typeof TemporalClientInterceptors;
}

/** Temporal's OpenTelemetry activity interceptors and workflow span exporter. */
export function temporalWorkerInterceptors(): typeof TemporalWorkerInterceptors {
  return require("@temporalio/interceptors-opentelemetry/lib/worker/index.js") as typeof TemporalWorkerInterceptors;
}
