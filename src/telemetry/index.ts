/** OpenTelemetry for durable-agent, through Temporal's interceptors: `ai.worker({ telemetry })`, `ai.connect({ telemetry })`. */
export { type TelemetryOptions } from "./telemetry-options.js";
export { GEN_AI_ATTRIBUTE, SPAN_ATTRIBUTE } from "./span-attributes.js";
export { telemetryClientInterceptors } from "./client-telemetry.js";
export { telemetryWorkerOptions } from "./worker-telemetry.js";
