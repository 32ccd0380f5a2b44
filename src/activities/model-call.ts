import { ApplicationFailure, CancelledFailure, Context, log } from "@temporalio/activity";
import type { Usage } from "../core/usage.js";
import { failedAttemptSignal } from "../workflows/definitions.js";
import { ForkError, InstructionsError } from "../errors.js";
import { limitsOf } from "../limits.js";
import { classifyModelError, modelApiErrorFor, responseHeadersOf } from "../models/model-error-table.js";
import { runMcpTools } from "../mcp/run-tool-list.js";
import { checkOutput, outputRequestFor } from "../models/structured-output.js";
import type { ModelCallInput, ModelCallOutput, StoppedAnswer } from "../core/activity-types.js";
import { lookupAgent, type AgentRegistry, type WorkerFeatures } from "./registry.js";
import { toFailure } from "../core/typed-failures.js";
import { contextFor, runRefOf } from "../run-reads/index.js";
import type { ConversationCache } from "./conversation-cache.js";
import type { AgentDefinition } from "../agent/agent-definition.js";
import { isAiSdkModel, resolveModel } from "../models/agent-model.js";
import type { ModelCallRequest } from "../models/model-call-request.js";
import { callOpenAI } from "../models/openai-call.js";
import { callAiSdk } from "../models/ai-sdk-call.js";
import { defined } from "../core/defined.js";
import { MODEL_RETRY } from "../core/constants.js";

/** The `model.call` activity: one model call (the `openai` client's, or an AI SDK model's), its text streamed, returning the whole answer. */
export function createModelCall(
  registry: AgentRegistry,
  conversations: ConversationCache,
  publishing?: WorkerFeatures["deltas"],
  answerStream?: WorkerFeatures["answerStream"],
) {
  return async function modelCall(input: ModelCallInput): Promise<ModelCallOutput> {
    const agent = lookupAgent(registry, input.agent);
    const context = Context.current();
    const run = runRefOf(context);
    const model = modelFor(agent, input, run.workflowId);
    const check =
      input.conversationDigest === undefined
        ? input.conversationLength
        : { length: input.conversationLength, digest: input.conversationDigest, tail: input.conversationTail ?? [] };
    const { messages, source } = await conversations.read(context.client, { ...run, view: input.view }, check);
    const runContext = await contextFor(context, input.hasContext);
    const publisher = input.streamText
      ? publishing?.transport.publishAnswer(
          { workflowId: run.workflowId, trip: input.trip, attempt: context.info.attempt },
          { converter: publishing.converter, warn: (message) => log.warn(message) },
        )
      : undefined;
    const deltas = input.streamText ? await answerStream?.(input.trip, context.info.attempt, publisher) : undefined;
    let reported: Usage | undefined;
    let streamed = ""; // the answer's text so far: a stopped answer keeps it
    try {
      const tools = [...agent.tools, ...(agent.mcpToolsets.length ? await runMcpTools(context) : [])];
      const responseFormatWithTools = isAiSdkModel(model) ? undefined : model.settings.responseFormatWithTools;
      const output = outputRequestFor(agent, input.output, { hasTools: tools.length > 0, responseFormatWithTools });
      const request: ModelCallRequest = {
        instructions: input.overrides?.instructions ?? (await instructionsFor(agent, input, runContext)),
        messages,
        tools,
        output,
        runSettings: input.modelSettings,
        firstTrip: input.firstTrip === true,
        streamText: input.streamText === true,
        signal: context.cancellationSignal,
        ...(deltas
          ? {
              onTextDelta: (text: string) => ((streamed += text), deltas.add(text)),
              onReasoningDelta: (text: string) => deltas.addReasoning(text),
            }
          : {}),
        onUsage: (usage) => (reported = usage),
        limits: limitsOf(agent.options),
      };
      const answer = isAiSdkModel(model) ? await callAiSdk(model, request) : await callOpenAI(model, request);
      if (answer.adjustments.length)
        log.warn("model answer adjusted", { modelId: model.modelId, adjustments: answer.adjustments });
      const outputCheck =
        output && !answer.message.toolCalls?.length ? checkOutput(output, answer.message.content) : undefined;
      conversations.answered({ runId: run.runId, view: input.view }, answer.message);
      const { usage } = answer;
      return {
        message: answer.message,
        ...defined({ usage, output: outputCheck }),
        ...(source === "read" ? { conversationRead: true as const } : {}),
        agentVersion: agent.version,
        ...(context.info.attempt > 1 ? { attempt: context.info.attempt } : {}),
      };
    } catch (error) {
      await reportFailedAttempt(input.trip, reported);
      throw failureForModelError(error, model.modelId, streamed);
    } finally {
      await deltas?.close();
    }
  };
}

/** The agent's model, or, for a run with its own model id (an edited fork's), that model of the same client and settings. */
function modelFor(agent: AgentDefinition, input: ModelCallInput, workflowId: string) {
  const model = resolveModel(agent.options.model);
  const modelId = input.overrides?.modelId;
  if (modelId === undefined || modelId === model.modelId) return model;
  if (isAiSdkModel(model))
    throw toFailure(
      new ForkError(
        workflowId,
        `agent ${agent.name}'s model is an AI SDK model (${model.provider}), whose id cannot be changed: fork onto an agent with the model ${modelId} instead`,
      ),
      { nonRetryable: true },
    );
  return { ...model, modelId };
}

/** The system prompt for this call: the agent's text, or what its instructions function returns (an error fails the attempt, retryably). */
async function instructionsFor(
  agent: AgentDefinition,
  input: ModelCallInput,
  context: unknown,
): Promise<string | undefined> {
  const instructions = agent.options.instructions;
  if (typeof instructions !== "function") return instructions;
  let text: unknown;
  try {
    text = await instructions({ input: input.input ?? "", context, trip: input.trip, agent: agent.name });
  } catch (error) {
    throw toFailure(new InstructionsError(agent.name, error instanceof Error ? error.message : String(error)), {
      nonRetryable: false,
      nextRetryDelay: backoffMs(),
    });
  }
  if (typeof text !== "string")
    throw toFailure(new InstructionsError(agent.name, `it returned ${typeof text}, not a string`), {
      nonRetryable: false,
      nextRetryDelay: backoffMs(),
    });
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
    await context.client.workflow
      .getHandle(workflowId, runId)
      .signal(failedAttemptSignal, { trip, attempt: context.info.attempt, usage });
  } catch (error) {
    log.warn("could not report the usage of a failed model call attempt", { trip, error: (error as Error).message });
  }
}

/**
 * The Temporal failure a model call ends with, as `MODEL_ERROR_TABLE` classifies its error:
 * permanent fails the run, transient is retried. A call stopped on request (a session's
 * `cancel-message`) is cancelled with the text it had streamed as its details (`StoppedAnswer`),
 * for the workflow to keep in the conversation.
 */
function failureForModelError(error: unknown, modelId: string, streamed: string): unknown {
  const context = Context.current();
  const cancellation = context.cancellationSignal;
  if (cancellation.aborted && cancellation.reason !== undefined) {
    if (streamed === "" || !context.cancellationDetails?.cancelRequested) return cancellation.reason;
    const stopped: StoppedAnswer = { role: "assistant", content: streamed };
    return new CancelledFailure("the answer was stopped", [stopped]);
  }
  // Already decided (the instructions function failed): not a model error.
  if (error instanceof ApplicationFailure) return error;
  const { row, fault } = classifyModelError(error);
  const typed = modelApiErrorFor(error, modelId);
  const permanent = fault === "permanent";
  log.warn("model call failed", {
    modelId,
    error: typed.message,
    row: row?.error ?? "(not in the table: transient)",
    permanent,
  });
  const retryAfter = !permanent && row?.retryAfter ? retryAfterMs(responseHeadersOf(error)) : undefined;
  const nextRetryDelay = permanent ? undefined : (retryAfter ?? backoffMs());
  return toFailure(typed, { nonRetryable: permanent, nextRetryDelay });
}

/**
 * The delay before the next attempt of a failed model call: 1 s, doubling to 1 minute. Named by
 * the worker, since the retry policy's own first interval is short, for attempts lost with a worker.
 */
function backoffMs(attempt = Context.current().info.attempt): number {
  return Math.min(MODEL_RETRY.initialMs * MODEL_RETRY.backoffCoefficient ** (attempt - 1), MODEL_RETRY.maximumMs);
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
