/**
 * Worker-side: one model call through an AI SDK language model (`ai.model()`): the conversation
 * as the specification's prompt, the settings as its call options, `doStream` when someone reads
 * the text as it arrives (each text delta goes to the same heartbeat deltas as the `openai`
 * path's, and each reasoning delta beside them) and `doGenerate` otherwise; the answer back as the run records it.
 *
 * A setting the provider says it does not support (a warning of type `unsupported`, V2's
 * `unsupported-setting`) fails the call with an `AgentOptionsError` naming the setting, since the
 * provider would ignore or change it. Where the provider builds its request in a method of its own
 * (`getArgs`, as `@ai-sdk/anthropic`, `openai`, `google` and `openai-compatible` do), the worker
 * asks it once per model and settings before the first request, so such a setting costs no request. A provider without a JSON mode for the typed output (its
 * warning names `responseFormat`) is asked in the instructions instead, from then on on this worker.
 */
import { log } from "@temporalio/activity";
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
  LanguageModelV4ProviderTool,
} from "@ai-sdk/provider";
import type { ProviderToolLink } from "./provider-tool-link.js";
import { AgentOptionsError } from "../errors.js";
import {
  parallelToolCallsOption,
  type AiSdkModelReference,
  type AiSdkModelSettings,
  type ProviderOptions,
} from "./ai-sdk-model.js";
import { generatedAnswer, StreamedAnswer, type AiSdkAnswer, type CallWarning } from "./ai-sdk-answer.js";
import { ContentFilterError, isAnyAiSdkError, ProviderStreamError, StreamCutError } from "./ai-sdk-errors.js";
import { promptFor, takesImagesInToolResults, toLanguageModelPrompt } from "./ai-sdk-prompt.js";
import type { ModelCallAnswer, ModelCallRequest } from "./model-call-request.js";
import type { ModelSettings } from "../core/model-settings.js";
import { forcesToolCall } from "./request-settings.js";
import { outputInstructions, type OutputRequest } from "./structured-output.js";
import { checkAnswer } from "./validate-answer.js";
import { defined } from "../core/defined.js";

type StreamPart = { type: string; [key: string]: unknown };
/** The methods called, as every specification version has them. */
interface CallableModel {
  doStream(options: unknown): PromiseLike<{ stream: ReadableStream<StreamPart> }>;
  doGenerate(
    options: unknown,
  ): PromiseLike<{ content?: unknown; finishReason?: unknown; usage?: unknown; warnings?: unknown }>;
}

/**
 * How a model (provider and id) that warned about the JSON response format is asked for the typed
 * output: "json" (it took JSON mode but not the schema: JSON mode, and the schema in the
 * instructions) or "none" (no JSON mode: the instructions alone). Absent: JSON mode with the schema.
 */
const jsonFallbacks = new Map<string, "json" | "none">();

/** The output as asked of a model at a fallback level: the schema in the instructions, with JSON mode where it has one. */
function askedAt(
  output: OutputRequest,
  level: "json" | "none",
  hasTools: boolean,
): OutputRequest & { jsonMode?: true } {
  // Without tools only: JSON mode forces a JSON answer, which would leave no room for a tool call.
  return { ...output, mode: "prompt", ...(level === "json" && !hasTools ? { jsonMode: true as const } : {}) };
}

/** Sends the conversation to an AI SDK model and returns the checked answer; rejects with what the provider raised. */
export async function callAiSdk(model: AiSdkModelReference, request: ModelCallRequest): Promise<ModelCallAnswer> {
  const key = `${model.provider}\n${model.modelId}`;
  const hasTools = request.tools.length > 0;
  const level = jsonFallbacks.get(key);
  const output = request.output;
  let asked = output?.mode === "json-schema" && level ? askedAt(output, level, hasTools) : output;
  let answer = await callOnce(model, request, asked);
  // A JSON schema it does not take: JSON mode with the schema in the instructions; no JSON mode at all: the instructions alone.
  while (answer === "no-json-mode") {
    const next = asked?.mode === "json-schema" && !hasTools ? "json" : "none";
    jsonFallbacks.set(key, next);
    log.info(
      next === "json"
        ? "the model takes JSON mode but not a JSON schema: asking for the typed output's schema in the instructions"
        : "the model has no JSON mode for the typed output: asking for it in the instructions",
      { provider: model.provider, modelId: model.modelId },
    );
    asked = askedAt(output!, next, hasTools); // "no-json-mode" answers a call that asked for typed output only
    answer = await callOnce(model, request, asked);
  }
  if (answer.finish?.reason === "content-filter") throw new ContentFilterError(answer.finish.raw);
  if (answer.finish?.reason === "interrupted" || answer.finish?.reason === "error")
    throw new StreamCutError(
      `finish reason ${answer.finish.reason}${answer.finish.raw ? ` (${answer.finish.raw})` : ""}`,
    );
  const checked = checkAnswer(answer.draft, { modelId: model.modelId, limits: request.limits });
  if (!checked.ok) throw checked.error;
  return {
    message: checked.message,
    ...defined({ usage: answer.usage }),
    adjustments: checked.adjustments,
  };
}

/** One request; "no-json-mode" when a streamed answer's warnings say the JSON response format is not supported (nothing was read of it yet). */
async function callOnce(
  model: AiSdkModelReference,
  request: ModelCallRequest,
  output: (OutputRequest & { jsonMode?: true }) | undefined,
): Promise<AiSdkAnswer | "no-json-mode"> {
  const settings = mergeSettings(model.settings, request.runSettings);
  const options = callOptions(model, settings, request, output);
  const callable = model.languageModel as unknown as CallableModel;
  const pricing = model.settings.pricing;
  if ((await checkBeforeRequest(model, settings, request, options)) === "no-json-mode") return "no-json-mode";
  if (!request.streamText) {
    const answer = generatedAnswer(await callable.doGenerate(options), pricing);
    if (answer.usage) request.onUsage(answer.usage);
    if (judgeWarnings(model, settings, request, options, answer.warnings) === "no-json-mode")
      jsonFallbacks.set(
        `${model.provider}\n${model.modelId}`,
        options.responseFormat?.type === "json" && options.responseFormat.schema ? "json" : "none",
      );
    return answer;
  }
  const { stream } = await callable.doStream(options);
  const collected = new StreamedAnswer(request.onTextDelta, request.onReasoningDelta);
  const reader = stream.getReader();
  try {
    for (;;) {
      const { value: part, done } = await reader.read();
      if (done) break;
      const failed = collected.add(part);
      // Errors (the AI SDK's own: an API call error, a chunk it could not parse; a broken connection) as they are; what the provider sent as data, wrapped.
      if (failed)
        throw isAnyAiSdkError(failed.error) || failed.error instanceof Error
          ? failed.error
          : new ProviderStreamError(failed.error);
      if (
        part.type === "stream-start" &&
        judgeWarnings(model, settings, request, options, collected.warnings) === "no-json-mode"
      )
        return "no-json-mode";
      if (part.type === "finish") {
        const usage = collected.answer(pricing).usage;
        if (usage) request.onUsage(usage);
      }
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
  const answer = collected.answer(pricing);
  if (!answer.finish) throw new StreamCutError("the stream closed without a finish part");
  return answer;
}

/** Models and settings whose request the provider built without a warning that fails the call: asked once each. */
const checkedBeforeRequest = new Set<string>();
const MAX_CHECKED = 1_000;

/**
 * The warnings of the request the provider would send, judged before it is sent, once per model and
 * settings: a provider's `getArgs(options)` builds the request and its warnings without sending it.
 * A provider without one (or whose `getArgs` fails) is judged on its answer's warnings only.
 */
async function checkBeforeRequest(
  model: AiSdkModelReference,
  settings: AiSdkModelSettings,
  request: ModelCallRequest,
  options: LanguageModelV4CallOptions,
): Promise<"no-json-mode" | undefined> {
  const getArgs = (model.languageModel as { getArgs?: unknown }).getArgs;
  if (typeof getArgs !== "function") return undefined;
  const { prompt: _prompt, abortSignal: _signal, ...rest } = options;
  const key = `${model.provider}\n${model.modelId}\n${request.streamText}\n${JSON.stringify(rest)}`;
  if (checkedBeforeRequest.has(key)) return undefined;
  let warnings: unknown;
  try {
    // Anthropic's reads the betas the caller supplied; the others ignore the extra fields.
    ({ warnings } = (await getArgs.call(model.languageModel, {
      ...options,
      stream: request.streamText,
      userSuppliedBetas: new Set<string>(),
    })) as { warnings?: unknown });
  } catch {
    return undefined;
  }
  const verdict = judgeWarnings(model, settings, request, options, Array.isArray(warnings) ? warnings : [], "before");
  if (checkedBeforeRequest.size >= MAX_CHECKED) checkedBeforeRequest.clear();
  checkedBeforeRequest.add(key);
  return verdict;
}

/** The model's settings with the run's on top (a run's `extraBody` has no meaning here). */
function mergeSettings(model: AiSdkModelSettings, run: ModelSettings | undefined): AiSdkModelSettings {
  if (!run) return model;
  const { extraBody, ...rest } = run;
  if (extraBody !== undefined)
    throw new AgentOptionsError(
      "modelSettings.extraBody",
      "an AI SDK model (ai.model()) takes provider options in ai.model(languageModel, { providerOptions }), not extraBody",
    );
  return { ...model, ...rest };
}

/** Our settings as the specification's call options. */
function callOptions(
  model: AiSdkModelReference,
  settings: AiSdkModelSettings,
  request: ModelCallRequest,
  output: (OutputRequest & { jsonMode?: true }) | undefined,
): LanguageModelV4CallOptions {
  const version = model.languageModel.specificationVersion;
  const instructions =
    output?.mode === "prompt"
      ? [request.instructions, outputInstructions(output)].filter(Boolean).join("\n\n")
      : request.instructions;
  const prompt = toLanguageModelPrompt(instructions, request.messages, {
    imagesInToolResults: takesImagesInToolResults(model.provider),
  });
  const tools = request.tools.map((tool): LanguageModelV4FunctionTool | LanguageModelV4ProviderTool => {
    const provided = "providerTool" in tool ? (tool as { providerTool?: ProviderToolLink }).providerTool : undefined;
    if (provided)
      // V3 and V4 name it "provider", V2 "provider-defined"
      return {
        type: version === "v2" ? "provider-defined" : "provider",
        ...provided,
        name: tool.name,
      } as LanguageModelV4ProviderTool;
    return {
      type: "function",
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      inputSchema: ("jsonSchema" in tool
        ? tool.jsonSchema
        : tool.inputSchema) as LanguageModelV4FunctionTool["inputSchema"],
    };
  });
  let providerOptions: ProviderOptions | undefined = settings.providerOptions;
  const options: Record<string, unknown> = { prompt: promptFor(version, prompt), abortSignal: request.signal };
  const set = (key: string, value: unknown) => value !== undefined && (options[key] = value);
  set("temperature", settings.temperature);
  set("maxOutputTokens", settings.maxTokens);
  set("topP", settings.topP);
  set("topK", settings.topK);
  set("seed", settings.seed);
  set("stopSequences", typeof settings.stop === "string" ? [settings.stop] : settings.stop);
  set("presencePenalty", settings.presencePenalty);
  set("frequencyPenalty", settings.frequencyPenalty);
  if (settings.reasoningEffort !== undefined) {
    if (version !== "v4")
      throw new AgentOptionsError(
        fieldOf("reasoningEffort", request),
        `a specificationVersion ${version} model has no reasoning setting; set the provider's own in providerOptions (e.g. { openai: { reasoningEffort } })`,
      );
    options.reasoning = settings.reasoningEffort;
  }
  if (tools.length) {
    options.tools = tools;
    const choice = settings.toolChoice;
    if (choice !== undefined && (!forcesToolCall(choice) || request.firstTrip || settings.resetToolChoice === false)) {
      options.toolChoice = typeof choice === "object" ? { type: "tool", toolName: choice.tool } : { type: choice };
    }
    if (settings.parallelToolCalls !== undefined) {
      const parallel = parallelToolCallsOption(model.languageModel, settings.parallelToolCalls);
      if (!parallel)
        throw new AgentOptionsError(
          fieldOf("parallelToolCalls", request),
          `provider "${model.provider}" has no parallel tool calls setting durable-agent knows; set it in providerOptions if it has one`,
        );
      providerOptions = mergeProviderOptions(providerOptions, parallel);
    }
  }
  if (output?.mode === "json-schema")
    options.responseFormat = { type: "json", schema: output.jsonSchema, name: "output" };
  else if (output?.jsonMode) options.responseFormat = { type: "json" };
  if (providerOptions) options.providerOptions = providerOptions;
  return options as LanguageModelV4CallOptions;
}

function mergeProviderOptions(a: ProviderOptions | undefined, b: ProviderOptions): ProviderOptions {
  const merged: ProviderOptions = { ...a };
  for (const [provider, fields] of Object.entries(b)) merged[provider] = { ...a?.[provider], ...fields };
  return merged;
}

/** Where a setting was given: the run's `modelSettings`, or the model's. */
function fieldOf(setting: string, request: ModelCallRequest): string {
  return request.runSettings && setting in request.runSettings ? `modelSettings.${setting}` : setting;
}

/** The call option a warning names, as our setting's name. */
const SETTING_OF_OPTION: Record<string, keyof AiSdkModelSettings> = {
  temperature: "temperature",
  maxOutputTokens: "maxTokens",
  topP: "topP",
  topK: "topK",
  seed: "seed",
  stopSequences: "stop",
  presencePenalty: "presencePenalty",
  frequencyPenalty: "frequencyPenalty",
  reasoning: "reasoningEffort",
  toolChoice: "toolChoice",
};

/**
 * The warnings of a call: a setting we sent that the provider does not support throws
 * `AgentOptionsError` naming it; a JSON response format it does not support is "no-json-mode";
 * any other warning is logged.
 */
function judgeWarnings(
  model: AiSdkModelReference,
  settings: AiSdkModelSettings,
  request: ModelCallRequest,
  sent: LanguageModelV4CallOptions,
  warnings: CallWarning[],
  when: "before" | "after" = "after",
): "no-json-mode" | undefined {
  let verdict: "no-json-mode" | undefined;
  for (const warning of warnings) {
    const named =
      warning.type === "unsupported"
        ? warning.feature
        : warning.type === "unsupported-setting"
          ? warning.setting
          : undefined;
    if (typeof named === "string" && named === "responseFormat" && sent.responseFormat) {
      verdict = "no-json-mode";
      continue;
    }
    const setting = typeof named === "string" ? SETTING_OF_OPTION[named] : undefined;
    const option =
      typeof named === "string" && named.startsWith("providerOptions.")
        ? named.slice("providerOptions.".length)
        : undefined;
    if (setting && (sent as Record<string, unknown>)[named!] !== undefined && settings[setting] !== undefined) {
      throw new AgentOptionsError(
        fieldOf(setting, request),
        `${model.provider} "${model.modelId}" does not support ` +
          `it${warning.details ? `: ${warning.details}` : ""}. Remove it from the model's settings or the ` +
          `run's modelSettings.`,
      );
    }
    if (option && hasPath(settings.providerOptions, option)) {
      throw new AgentOptionsError(
        `providerOptions.${option}`,
        `${model.provider} "${model.modelId}" does not support it${warning.details ? `: ${warning.details}` : ""}.`,
      );
    }
    if (when === "after") log.warn("model call warning", { provider: model.provider, modelId: model.modelId, warning });
  }
  return verdict;
}

function hasPath(value: unknown, path: string): boolean {
  let current = value;
  for (const key of path.split(".")) {
    if (typeof current !== "object" || current === null || !(key in current)) return false;
    current = (current as Record<string, unknown>)[key];
  }
  return true;
}
