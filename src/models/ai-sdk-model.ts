/**
 * `ai.model()`: a language model of the AI SDK's provider specification (`@ai-sdk/provider`),
 * as any provider package makes it (`anthropic("claude-sonnet-4-5")`, `google(...)`,
 * `openai.responses(...)`, `createOpenAICompatible(...)(...)`), with the settings `ai.openai()`
 * has. The object is user code: it stays in the agent definition on the worker, and the
 * `model.call` activity calls it. The workflow sees only its provider and id. Nothing here imports
 * `@ai-sdk/provider` at run time; the model is recognised by its shape.
 */
import { checkKnownKeys, type KnownKeys } from "../options/known-keys.js";
import { fail } from "../options/option-checks.js";
import type { ModelPricing } from "../core/usage.js";
import type { ModelSettings } from "../core/model-settings.js";
import { validatePricing, validateSamplingSettings } from "./model-settings.js";

/**
 * The specification versions accepted: `v4` (AI SDK 7, `@ai-sdk/provider` 4.x, what current
 * provider packages implement), `v3` (AI SDK 6, `@ai-sdk/provider` 3.x) and `v2` (AI SDK 5).
 */
export const LANGUAGE_MODEL_SPECIFICATIONS = ["v4", "v3", "v2"] as const;

/** A specification version of `LANGUAGE_MODEL_SPECIFICATIONS`. */
export type LanguageModelSpecification = (typeof LANGUAGE_MODEL_SPECIFICATIONS)[number];

/**
 * A language model of the AI SDK's provider specification: `LanguageModelV4`, `LanguageModelV3`
 * or `LanguageModelV2` of `@ai-sdk/provider`, as a provider package returns it. Only its shape is
 * named here, so the library does not depend on any version of `@ai-sdk/provider`.
 */
export interface LanguageModel {
  /** The specification version the model implements. */
  readonly specificationVersion: LanguageModelSpecification;
  /** The provider, e.g. `anthropic.messages`, `openai.responses`, `google.generative-ai`. */
  readonly provider: string;
  /** The provider's model id. */
  readonly modelId: string;
  /** A whole answer (not streamed). */
  doGenerate(options: never): PromiseLike<unknown>;
  /** An answer streamed as parts. */
  doStream(options: never): PromiseLike<unknown>;
}

/** Provider-specific options, by provider name, passed to the provider as they are (`providerOptions` of the AI SDK). */
export type ProviderOptions = Record<string, Record<string, unknown>>;

/**
 * Settings of an AI SDK model (`ai.model(languageModel, settings)`): the sampling and tool
 * settings `ai.openai()` has, its prices, and options for the provider. A run's `modelSettings`
 * override the same fields.
 */
export interface AiSdkModelSettings extends Omit<ModelSettings, "extraBody"> {
  /** Prices per million tokens: each call's `usage.costUsd`, and `budget.maxCostUsd`, come from them. */
  pricing?: ModelPricing;
  /**
   * Options for the provider, by provider name, sent as the AI SDK's `providerOptions` (e.g.
   * `{ anthropic: { thinking: { type: "enabled", budgetTokens: 2048 } } }` or `{ openai: {
   * reasoningEffort: "low", store: false } }`).
   */
  providerOptions?: ProviderOptions;
}

/** The keys of `AiSdkModelSettings`, checked by `ai.model()`. */
export const AI_SDK_SETTING_KEYS = {
  pricing: true,
  providerOptions: true,
  temperature: true,
  maxTokens: true,
  toolChoice: true,
  resetToolChoice: true,
  parallelToolCalls: true,
  topP: true,
  topK: true,
  seed: true,
  stop: true,
  presencePenalty: true,
  frequencyPenalty: true,
  reasoningEffort: true,
} as const satisfies Record<keyof AiSdkModelSettings, true> & KnownKeys;

/** An AI SDK language model with its settings, for `ai.agent({ model })`. Create with `ai.model()`. */
export interface AiSdkModelReference {
  /** The model's provider (`languageModel.provider`). */
  readonly provider: string;
  /** The model's id (`languageModel.modelId`). */
  readonly modelId: string;
  /** The provider's model object; it is called on the worker only. */
  readonly languageModel: LanguageModel;
  readonly settings: AiSdkModelSettings;
}

/** Whether `value` has the shape of a language model of the AI SDK's specification (any version). */
export function looksLikeLanguageModel(
  value: unknown,
): value is { specificationVersion: unknown; provider: unknown; modelId: unknown } {
  return (
    typeof value === "object" &&
    value !== null &&
    "specificationVersion" in value &&
    ("doGenerate" in value || "doStream" in value)
  );
}

/** Throws `AgentOptionsError` at `field` unless `value` is a language model of a supported specification version. */
export function checkLanguageModel(value: unknown, field: string): asserts value is LanguageModel {
  const supported = LANGUAGE_MODEL_SPECIFICATIONS.map((v) => `"${v}"`).join(", ");
  if (!looksLikeLanguageModel(value))
    fail(
      field,
      `must be ai.openai(...), ai.model(languageModel) or an AI SDK language model (specificationVersion ${supported})`,
    );
  const { specificationVersion: version, provider, modelId } = value as unknown as Record<string, unknown>;
  if (!LANGUAGE_MODEL_SPECIFICATIONS.includes(version as LanguageModelSpecification)) {
    fail(
      field,
      `is an AI SDK language model of specificationVersion ${JSON.stringify(version)}; durable-agent takes ${supported} ` +
        `(AI SDK 7, 6 and 5: @ai-sdk/provider 4.x, 3.x, 2.x). Install a provider package of one of those majors.`,
    );
  }
  if (typeof provider !== "string" || typeof modelId !== "string")
    fail(field, "is an AI SDK language model without a string provider and modelId");
  const methods = value as unknown as { doGenerate?: unknown; doStream?: unknown };
  if (typeof methods.doGenerate !== "function" || typeof methods.doStream !== "function")
    fail(field, "is an AI SDK language model without doGenerate and doStream methods");
}

/** Checks the settings of `ai.model(languageModel, settings)`; `field` is where they were given. */
export function validateAiSdkSettings(model: LanguageModel, settings: AiSdkModelSettings, field: string): void {
  if (typeof settings !== "object" || settings === null) fail(field, "model settings must be an object");
  validateSamplingSettings(settings, field);
  validatePricing(settings.pricing, `${field}.pricing`);
  const options = settings.providerOptions as unknown;
  if (options !== undefined) {
    if (typeof options !== "object" || options === null || Array.isArray(options))
      fail(`${field}.providerOptions`, "must be an object of options by provider name, e.g. { anthropic: { ... } }");
    for (const [name, value] of Object.entries(options)) {
      if (typeof value !== "object" || value === null || Array.isArray(value))
        fail(`${field}.providerOptions.${name}`, "must be an object of the provider's options");
    }
  }
  if (
    settings.parallelToolCalls !== undefined &&
    parallelToolCallsOption(model, settings.parallelToolCalls) === undefined
  ) {
    fail(
      `${field}.parallelToolCalls`,
      `provider "${model.provider}" has no parallel tool calls setting durable-agent knows; set it in providerOptions if it has one`,
    );
  }
}

/**
 * `parallelToolCalls` as the provider's own option: OpenAI's `parallelToolCalls`, Anthropic's
 * `disableParallelToolUse`, an OpenAI-compatible server's `parallel_tool_calls` body field.
 * Undefined for a provider without one.
 */
export function parallelToolCallsOption(model: LanguageModel, parallel: boolean): ProviderOptions | undefined {
  const provider = model.provider.split(".")[0]!;
  if (provider === "openai" || provider === "azure") return { openai: { parallelToolCalls: parallel } };
  if (provider === "anthropic") return { anthropic: { disableParallelToolUse: !parallel } };
  // An OpenAI-compatible chat model (createOpenAICompatible): its provider's options go into the body as they are.
  const compatible = (model as { providerOptionsName?: unknown }).providerOptionsName;
  if (typeof compatible === "string" && model.provider.endsWith(".chat"))
    return { [compatible]: { parallel_tool_calls: parallel } };
  return undefined;
}

/** An AI SDK language model with settings, for `ai.agent({ model })`; throws `AgentOptionsError` for a model or setting it cannot use. */
export function model(languageModel: LanguageModel, settings: AiSdkModelSettings = {}): AiSdkModelReference {
  checkLanguageModel(languageModel, "ai.model(languageModel)");
  const at = `ai.model(${languageModel.provider} "${languageModel.modelId}")`;
  if (typeof settings !== "object" || settings === null)
    fail("settings", `${at}: settings must be an object { temperature?, maxTokens?, pricing?, providerOptions?, ... }`);
  checkKnownKeys(settings, AI_SDK_SETTING_KEYS, at);
  validateAiSdkSettings(languageModel, settings, `${at} settings`);
  return { provider: languageModel.provider, modelId: languageModel.modelId, languageModel, settings };
}
