/** What `telemetry` takes on `ai.worker()` and `ai.connect()`, resolved to a tracer and a span processor. */
import type * as otel from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { AgentOptionsError } from "../errors.js";
import { openTelemetryApi, openTelemetrySdk } from "./open-telemetry.js";

/**
 * OpenTelemetry for durable-agent's runs, through Temporal's OpenTelemetry interceptors. Off unless
 * given. Spans: `StartWorkflow:agentRun` (client) → `RunWorkflow:agentRun` (the run) →
 * `StartActivity:<type>` → `RunActivity:<type>` for each trip's `model.call`, each
 * `tool.execute`, `backstop.run` and `contract.evaluate`, with `durable_agent.*` attributes.
 */
export interface TelemetryOptions {
  /**
   * Where spans go, e.g. `new BatchSpanProcessor(new OTLPTraceExporter())`. Required on workers:
   * workflow spans are exported through it from the workflow sandbox (a Temporal sink). On clients,
   * optional when `tracer` is given.
   */
  spanProcessor?: SpanProcessor;
  /** Resource attributes of workflow spans (and of the default tracer's spans); default `service.name: durable-agent`. */
  resource?: Resource;
  /**
   * The tracer for activity and client spans; default one from a tracer provider that sends to
   * `spanProcessor` (so `spanProcessor` alone is enough).
   */
  tracer?: otel.Tracer;
}

/** Telemetry options with their defaults filled in. */
export interface ResolvedTelemetry {
  tracer: otel.Tracer;
  resource: Resource;
  spanProcessor: SpanProcessor | undefined;
}

/** The instrumentation scope of spans from the default tracer. */
export const TRACER_NAME = "durable-agent";

/**
 * Fills in defaults, and makes sure the process has an async context manager and a propagator:
 * Temporal's interceptors need both to link activity and client spans to their parents through
 * the workflow's headers (an OpenTelemetry NodeSDK registers them; without one this registers an
 * AsyncLocalStorage context manager and the W3C trace-context and baggage propagators).
 */
export function resolveTelemetry(options: TelemetryOptions, where: "worker" | "client"): ResolvedTelemetry {
  if (where === "worker" && !options.spanProcessor)
    throw new AgentOptionsError(
      "telemetry.spanProcessor",
      "required on a worker: workflow spans are exported through it (e.g. new BatchSpanProcessor(exporter))",
    );
  if (!options.spanProcessor && !options.tracer)
    throw new AgentOptionsError("telemetry", "give a spanProcessor or a tracer");
  ensureContextPropagation();
  const { Resource, BasicTracerProvider } = openTelemetrySdk();
  const resource = options.resource ?? new Resource({ "service.name": TRACER_NAME });
  const tracer =
    options.tracer ??
    new BasicTracerProvider({ resource, spanProcessors: [options.spanProcessor!] }).getTracer(TRACER_NAME);
  return { tracer, resource, spanProcessor: options.spanProcessor };
}

let globalsChecked = false;

/** An async context manager and a W3C trace-context propagator, unless the process has its own. */
function ensureContextPropagation(): void {
  if (globalsChecked) return;
  globalsChecked = true;
  const otel = openTelemetryApi();
  const { AsyncLocalStorageContextManager, CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } =
    openTelemetrySdk();
  const manager = new AsyncLocalStorageContextManager().enable();
  // false when one is registered already (a NodeSDK's): keep that one.
  if (!otel.context.setGlobalContextManager(manager)) manager.disable();
  otel.propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
}
