import { Context, log } from "@temporalio/activity";
import { WorkflowStreamClient } from "@temporalio/workflow-streams/client";
import { RUN_EVENTS_TOPIC, type RunEvent } from "../contract/run-events.js";
import OpenAI from "openai";
import type { Message } from "../contract/types.js";
import { usageFromOpenAI, type OpenAIUsage, type Usage } from "../contract/usage.js";
import { failedAttemptSignal } from "../workflows/definitions.js";
import { InstructionsError, ModelApiError, PayloadTooLargeError, TooManyToolCallsError } from "../errors.js";
import { limitsOf } from "../limits.js";
import { openaiClientFor, toChatMessages, toChatTools } from "../models/openai-client.js";
import { validateAnswer } from "../models/validate-answer.js";
import { checkOutput, outputInstructions, outputRequestFor, responseFormatOf } from "../models/structured-output.js";
import type { OutputCheck } from "../contract/decide.js";
import { failureOf, lookupAgent, type AgentRegistry } from "./registry.js";
import { contextFor, readConversation, runRefOf } from "./run-reader.js";
import type { Agent } from "../agent/define-agent.js";
import type { ModelSettings } from "../models/openai-model.js";
import { mergeModelSettings, requestFields } from "../models/request-settings.js";

/** Input of the `model.call` activity. */
export interface ModelCallInput {
  agent: string;
  /** How many of the run's messages to send; the activity reads them from the run, not from this input. */
  conversationLength: number;
  trip: number;
  /** Publish text deltas to the run's stream as they arrive. */
  streamText?: boolean;
  /** Bumped when a handoff's inputFilter replaced the run's conversation: cached messages of an earlier view are stale. */
  view?: number;
  /** The run's own output schema (JSON schema), over the agent's `output`. */
  output?: Record<string, unknown>;
  /** The run has a context: read it (by query) for an instructions function. */
  hasContext?: boolean;
  /** The user's request, for an instructions function. */
  input?: string;
  /** The run's own model settings, over the model's. */
  modelSettings?: ModelSettings;
  /** The first trip of the run (a session: of the message): a forcing toolChoice applies. */
  firstTrip?: boolean;
}

/** Output of the `model.call` activity: the model's answer. */
export interface ModelCallOutput {
  message: Extract<Message, { role: "assistant" }>;
  /** What the answer reported; absent when the server reported none. */
  usage?: Usage;
  /** With an output schema, for an answer without tool calls: its text parsed and validated. */
  output?: OutputCheck;
}

/** Statuses that retrying cannot fix. */
const PERMANENT = new Set([400, 401, 403, 404, 422]);

/** The `model.call` activity: one Chat Completions call, streamed, returning the whole answer. */
export function createModelCall(registry: AgentRegistry) {
  return async function modelCall(input: ModelCallInput): Promise<ModelCallOutput> {
    const agent = lookupAgent(registry, input.agent);
    const model = agent.options.model;
    const context = Context.current();
    const messages = await readConversation(context.client, runRefOf(context), input.conversationLength, input.view);
    const runContext = await contextFor(context, input.hasContext);
    const deltas = input.streamText ? textDeltaPublisher(input.trip, context.info.attempt) : undefined;
    let reported: OpenAIUsage | undefined;
    try {
      const client = openaiClientFor(model);
      const tools = toChatTools(agent.tools);
      const output = outputRequestFor(agent, input.output);
      const base = await instructionsFor(agent, input, runContext);
      const instructions = output?.mode === "prompt" ? [base, outputInstructions(output)].filter(Boolean).join("\n\n") : base;
      const stream = client.chat.completions.stream(
        {
          model: model.modelId,
          messages: toChatMessages(instructions, messages),
          ...(tools.length ? { tools } : {}),
          ...(output?.mode === "json-schema" ? { response_format: responseFormatOf(output) } : {}),
          ...requestFields(mergeModelSettings(model.settings, input.modelSettings), { hasTools: tools.length > 0, firstTrip: input.firstTrip === true }),
          stream_options: { include_usage: true },
        },
        { signal: context.cancellationSignal },
      );
      stream.on("chunk", (chunk) => void (chunk.usage && (reported = chunk.usage)));
      if (deltas) stream.on("content.delta", ({ delta }) => deltas.publish(delta));
      const completion = await stream.finalChatCompletion();
      reported = completion.usage ?? reported;
      const answer = validateAnswer(completion, { modelId: model.modelId, limits: limitsOf(agent.options) });
      if (!answer.ok) throw answer.error;
      if (answer.adjustments.length) log.warn("model answer adjusted", { modelId: model.modelId, adjustments: answer.adjustments });
      const usage = usageFromOpenAI(reported, model.settings.pricing);
      const check = output && !answer.message.toolCalls?.length ? checkOutput(output, answer.message.content) : undefined;
      return { message: answer.message, ...(usage ? { usage } : {}), ...(check ? { output: check } : {}) };
    } catch (error) {
      await reportFailedAttempt(input.trip, usageFromOpenAI(reported, model.settings.pricing));
      throw classifyModelError(error, model.modelId);
    } finally {
      await deltas?.close();
    }
  };
}

/** The system prompt for this call: the agent's text, or what its instructions function returns (an error fails the attempt, retryably). */
async function instructionsFor(agent: Agent, input: ModelCallInput, context: unknown): Promise<string | undefined> {
  const instructions = agent.options.instructions;
  if (typeof instructions !== "function") return instructions;
  let text: unknown;
  try {
    text = await instructions({ input: input.input ?? "", context, trip: input.trip, agent: agent.name });
  } catch (error) {
    throw failureOf(new InstructionsError(agent.name, error instanceof Error ? error.message : String(error)), { nonRetryable: false });
  }
  if (typeof text !== "string") throw failureOf(new InstructionsError(agent.name, `it returned ${typeof text}, not a string`), { nonRetryable: false });
  return text;
}

/**
 * An attempt that fails after the server reported usage was still paid for: tell the workflow
 * (a signal, recorded before the attempt's failure) so the run counts it, whether Temporal
 * retries the call or the run fails.
 */
async function reportFailedAttempt(trip: number, usage: Usage | undefined): Promise<void> {
  if (!usage) return;
  const context = Context.current();
  const { workflowId, runId } = runRefOf(context);
  try {
    await context.client.workflow.getHandle(workflowId, runId).signal(failedAttemptSignal, { trip, attempt: context.info.attempt, usage });
  } catch (error) {
    log.warn("could not report the usage of a failed model call attempt", { trip, error: (error as Error).message });
  }
}

/** How often text deltas are sent to the workflow: each batch is one signal in the history. */
const DELTA_BATCH_INTERVAL = "100 milliseconds";

/** Publishes a trip's text deltas to the run's stream, marking a retried attempt first. */
function textDeltaPublisher(trip: number, attempt: number) {
  const client = WorkflowStreamClient.fromWithinActivity({ batchInterval: DELTA_BATCH_INTERVAL });
  const topic = client.topic<RunEvent>(RUN_EVENTS_TOPIC);
  let first = true;
  if (attempt > 1) topic.publish({ type: "trip.retry", trip, attempt }, { forceFlush: true });
  return {
    publish(text: string) {
      topic.publish({ type: "text.delta", trip, attempt, text }, { forceFlush: first });
      first = false;
    },
    close: () => client[Symbol.asyncDispose](),
  };
}

/** Permanent API errors fail at once; rate limits, server errors and lost connections are retried by Temporal. */
function classifyModelError(error: unknown, modelId: string): unknown {
  // Aborted by the activity's cancellation (the run was cancelled, or the worker is shutting down): report that, retryably.
  if (error instanceof OpenAI.APIUserAbortError) return Context.current().cancellationSignal.reason ?? failureOf(new ModelApiError(`Model "${modelId}": the call was aborted`, undefined, modelId), { nonRetryable: false });
  if (ModelApiError.isInstance(error) || TooManyToolCallsError.isInstance(error) || PayloadTooLargeError.isInstance(error)) {
    return failureOf(error, { nonRetryable: true });
  }
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    const typed = new ModelApiError(`Model "${modelId}" API error ${error.status}: ${error.message}`, error.status, modelId);
    const permanent = PERMANENT.has(error.status);
    log.warn("model call failed", { modelId, status: error.status, permanent });
    return failureOf(typed, { nonRetryable: permanent, nextRetryDelay: permanent ? undefined : retryAfterMs(error.headers) });
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return failureOf(new ModelApiError(`Model "${modelId}" is unreachable: ${error.message}`, undefined, modelId), { nonRetryable: false });
  }
  if (error instanceof OpenAI.OpenAIError && isConnectionLost(error)) {
    return failureOf(new ModelApiError(`Model "${modelId}": the connection was lost mid-stream (${error.message})`, undefined, modelId), { nonRetryable: false });
  }
  if (error instanceof OpenAI.OpenAIError) {
    return failureOf(new ModelApiError(`Model "${modelId}": ${error.message}`, undefined, modelId), { nonRetryable: true });
  }
  return error;
}

/** A stream whose connection dropped mid-body (undici's "terminated", a reset socket): retrying can fix it. */
function isConnectionLost(error: Error): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if ((cause instanceof TypeError && cause.message === "terminated") || code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "EPIPE") return true;
  }
  return false;
}

/** `retry-after-ms` or `retry-after` (seconds or an HTTP date), in milliseconds. */
function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get("retry-after-ms"));
  if (ms > 0) return ms;
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
