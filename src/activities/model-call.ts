import { Context, log } from "@temporalio/activity";
import { WorkflowStreamClient } from "@temporalio/workflow-streams/client";
import { RUN_EVENTS_TOPIC, type RunEvent } from "../contract/run-events.js";
import OpenAI from "openai";
import type { Message } from "../contract/types.js";
import { limitsOf } from "../limits.js";
import { streamChatCompletion } from "../models/chat-stream.js";
import { classifyModelError, modelApiErrorFor } from "../models/model-error-table.js";
import { openaiClientFor, toChatMessages, toChatTools } from "../models/openai-client.js";
import { runMcpTools } from "../mcp/run-tool-list.js";
import { validateAnswer } from "../models/validate-answer.js";
import { failureOf, lookupAgent, type AgentRegistry } from "./registry.js";
import type { ConversationCache } from "./conversation-cache.js";
import { runRefOf } from "./run-reader.js";

/** Input of the `model.call` activity. */
export interface ModelCallInput {
  agent: string;
  /** How many of the run's messages to send; the activity reads them from the run, not from this input. */
  conversationLength: number;
  /** The digest of those messages (`DigestChain`): when it matches what the worker holds, nothing is read. */
  conversationDigest?: string;
  /** The last messages the workflow added itself (the input, a re-prompt), when small: no worker produced them. */
  conversationTail?: Message[];
  trip: number;
  /** Publish text deltas to the run's stream as they arrive. */
  streamText?: boolean;
}

/** Output of the `model.call` activity: the model's answer. */
export interface ModelCallOutput {
  message: Extract<Message, { role: "assistant" }>;
  /** Set when the worker had to read part of the conversation from the run (it did not hold all of it). */
  conversationRead?: true;
}

/** The `model.call` activity: one Chat Completions call, streamed, returning the whole answer. */
export function createModelCall(registry: AgentRegistry, conversations: ConversationCache) {
  return async function modelCall(input: ModelCallInput): Promise<ModelCallOutput> {
    const agent = lookupAgent(registry, input.agent);
    const model = agent.options.model;
    const context = Context.current();
    const run = runRefOf(context);
    const check = input.conversationDigest === undefined ? input.conversationLength : { length: input.conversationLength, digest: input.conversationDigest, tail: input.conversationTail ?? [] };
    const { messages, source } = await conversations.read(context.client, run, check);
    const deltas = input.streamText ? textDeltaPublisher(input.trip, context.info.attempt) : undefined;
    try {
      const client = openaiClientFor(model);
      const tools = toChatTools([...agent.tools, ...(agent.mcpToolsets.length ? await runMcpTools(context) : [])]);
      const completion = await streamChatCompletion(
        client,
        {
          model: model.modelId,
          messages: toChatMessages(agent.options.instructions, messages),
          ...(tools.length ? { tools } : {}),
          ...(model.settings.temperature !== undefined ? { temperature: model.settings.temperature } : {}),
          ...(model.settings.maxTokens !== undefined ? { max_completion_tokens: model.settings.maxTokens } : {}),
        },
        { signal: context.cancellationSignal, onTextDelta: deltas && ((text) => deltas.publish(text)) },
      );
      const answer = validateAnswer(completion, { modelId: model.modelId, limits: limitsOf(agent.options) });
      if (!answer.ok) throw answer.error;
      if (answer.adjustments.length) log.warn("model answer adjusted", { modelId: model.modelId, adjustments: answer.adjustments });
      conversations.answered(run.runId, answer.message);
      return { message: answer.message, ...(source === "read" ? { conversationRead: true as const } : {}) };
    } catch (error) {
      throw failureForModelError(error, model.modelId);
    } finally {
      await deltas?.close();
    }
  };
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

/** The Temporal failure a model call ends with, as `MODEL_ERROR_TABLE` classifies its error: permanent fails the run, transient is retried. */
function failureForModelError(error: unknown, modelId: string): unknown {
  const cancellation = Context.current().cancellationSignal;
  if (cancellation.aborted && cancellation.reason !== undefined) return cancellation.reason;
  const { row, fault } = classifyModelError(error);
  const typed = modelApiErrorFor(error, modelId);
  const permanent = fault === "permanent";
  log.warn("model call failed", { modelId, error: typed.message, row: row?.error ?? "(not in the table: transient)", permanent });
  const nextRetryDelay = !permanent && row?.retryAfter && error instanceof OpenAI.APIError ? retryAfterMs(error.headers) : undefined;
  return failureOf(typed, { nonRetryable: permanent, nextRetryDelay });
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
