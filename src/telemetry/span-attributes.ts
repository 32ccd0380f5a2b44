/** The `durable_agent.*` attributes set on activity spans: which agent, trip, tool or backstop a span is about. */
import type { Attributes } from "@opentelemetry/api";
import { ACTIVITY } from "../core/constants.js";

/** Attribute names, in one place. */
export const SPAN_ATTRIBUTE = {
  /** What the span is in the specification's terms: `trip` (a model call), `tool-call`, `backstop`, `contract`. */
  kind: "durable_agent.kind",
  agent: "durable_agent.agent",
  /** On the run span: why the run ended, how many trips it took, how many re-prompts were sent. */
  stopReason: "durable_agent.stop_reason",
  trips: "durable_agent.trips",
  reprompts: "durable_agent.reprompts",
  /** On `durable_agent.reprompt` events of the run span: which contract option sent it. */
  repromptKind: "durable_agent.reprompt.kind",
  /** On `durable_agent.backstop` events of the run span: detected, ran, prompted or error. */
  backstopOutcome: "durable_agent.backstop.outcome",
  /** The trip a span belongs to; for backstops and contract checks, the trip whose answer is judged (0: before the first trip). */
  trip: "durable_agent.trip",
  model: "durable_agent.model",
  /** How many tool calls the model's answer asked for (0: an answer that may end the run). */
  answerToolCalls: "durable_agent.answer.tool_calls",
  tool: "durable_agent.tool",
  toolCallId: "durable_agent.tool_call.id",
  toolCallStatus: "durable_agent.tool_call.status",
  backstop: "durable_agent.backstop",
  /** The backstop returned a prompt: it is sent to the model (before the first trip, or as a re-prompt). */
  backstopPrompted: "durable_agent.backstop.prompted",
  /** Backstops whose `detect` said yes on this answer. */
  detected: "durable_agent.contract.detected",
  /** The re-prompts the contract built a hint for on this answer (`refusal-retry`, `act-when-asked`); the workflow sends at most one. */
  repromptCandidates: "durable_agent.contract.reprompt_candidates",
} as const;

/** OpenTelemetry's GenAI semantic conventions, on model call spans. */
export const GEN_AI_ATTRIBUTE = {
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
} as const;

const KIND: Record<string, string> = {
  [ACTIVITY.modelCall]: "trip",
  [ACTIVITY.toolExecute]: "tool-call",
  [ACTIVITY.backstopRun]: "backstop",
  [ACTIVITY.contractEvaluate]: "contract",
  [ACTIVITY.describe]: "describe",
  [ACTIVITY.runLoad]: "load",
};

type Input = {
  agent?: unknown;
  trip?: unknown;
  call?: { id?: unknown; name?: unknown };
  name?: unknown;
  turn?: { tripIndex?: unknown; phase?: unknown };
};

/** A turn's trip: the 1-based trip whose answer is judged, after; 0 before the first trip. */
function turnTrip(turn: { tripIndex?: unknown; phase?: unknown }): number | undefined {
  if (turn.phase === "before") return 0;
  return typeof turn.tripIndex === "number" ? turn.tripIndex + 1 : undefined;
}

/** Attributes known when the activity starts, from its input. */
export function inputAttributes(
  activityType: string,
  input: unknown,
  modelOf: (agent: string) => string | undefined,
): Attributes {
  const args = (typeof input === "object" && input !== null ? input : {}) as Input;
  const agent = typeof args.agent === "string" ? args.agent : typeof input === "string" ? input : undefined;
  const attributes: Attributes = { [SPAN_ATTRIBUTE.kind]: KIND[activityType] ?? activityType };
  if (agent !== undefined) attributes[SPAN_ATTRIBUTE.agent] = agent;
  const trip = typeof args.trip === "number" ? args.trip : args.turn ? turnTrip(args.turn) : undefined;
  if (trip !== undefined) attributes[SPAN_ATTRIBUTE.trip] = trip;
  if (activityType === ACTIVITY.modelCall && agent !== undefined) {
    const model = modelOf(agent);
    if (model !== undefined) attributes[SPAN_ATTRIBUTE.model] = model;
  }
  if (activityType === ACTIVITY.toolExecute) {
    if (typeof args.call?.name === "string") attributes[SPAN_ATTRIBUTE.tool] = args.call.name;
    if (typeof args.call?.id === "string") attributes[SPAN_ATTRIBUTE.toolCallId] = args.call.id;
  }
  if (activityType === ACTIVITY.backstopRun && typeof args.name === "string")
    attributes[SPAN_ATTRIBUTE.backstop] = args.name;
  return attributes;
}

type Output = {
  message?: { toolCalls?: unknown[] };
  usage?: { inputTokens?: unknown; outputTokens?: unknown };
  status?: unknown;
  prompt?: unknown;
  detected?: unknown;
  refusalHint?: unknown;
  actHint?: unknown;
};

/** Attributes known when the activity returns, from its output. */
export function outputAttributes(activityType: string, output: unknown): Attributes {
  const result = (typeof output === "object" && output !== null ? output : {}) as Output;
  switch (activityType) {
    case ACTIVITY.modelCall: {
      const { inputTokens, outputTokens } = result.usage ?? {};
      return {
        [SPAN_ATTRIBUTE.answerToolCalls]: result.message?.toolCalls?.length ?? 0,
        ...(typeof inputTokens === "number" ? { [GEN_AI_ATTRIBUTE.inputTokens]: inputTokens } : {}),
        ...(typeof outputTokens === "number" ? { [GEN_AI_ATTRIBUTE.outputTokens]: outputTokens } : {}),
      };
    }
    case ACTIVITY.toolExecute:
      return typeof result.status === "string" ? { [SPAN_ATTRIBUTE.toolCallStatus]: result.status } : {};
    case ACTIVITY.backstopRun:
      return { [SPAN_ATTRIBUTE.backstopPrompted]: typeof result.prompt === "string" };
    case ACTIVITY.contractEvaluate: {
      const candidates = [
        ...(typeof result.refusalHint === "string" ? ["refusal-retry"] : []),
        ...(typeof result.actHint === "string" ? ["act-when-asked"] : []),
      ];
      const detected = Array.isArray(result.detected)
        ? result.detected.filter((name): name is string => typeof name === "string")
        : [];
      return { [SPAN_ATTRIBUTE.detected]: detected, [SPAN_ATTRIBUTE.repromptCandidates]: candidates };
    }
    default:
      return {};
  }
}
