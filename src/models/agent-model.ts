/**
 * An agent's model, of either kind: `ai.openai()` (data: the Chat Completions API through the
 * `openai` client) or an AI SDK language model (`ai.model(languageModel, settings)`, or the
 * language model itself). One place reads which it is, for validation, `agent.version` and the
 * model call's dispatch.
 */
import type { AiSdkModelReference, LanguageModel } from "./ai-sdk-model.js";
import { looksLikeLanguageModel } from "./ai-sdk-model.js";
import type { ModelReference } from "./openai-model.js";
import type { ModelPricing } from "../core/usage.js";

/** What `ai.agent({ model })` takes: `ai.openai(...)`, `ai.model(languageModel, settings)`, or an AI SDK language model as a provider package makes it. */
export type AgentModel = ModelReference | AiSdkModelReference | LanguageModel;

/** A model of either kind with its settings: the `openai` client's reference, or an AI SDK model's. */
export type ResolvedModel = ModelReference | AiSdkModelReference;

const bare = new WeakMap<LanguageModel, AiSdkModelReference>();

/** The model with its settings: a bare AI SDK language model has none. */
export function resolveModel(model: AgentModel): ResolvedModel {
  if (!looksLikeLanguageModel(model)) return model as ResolvedModel;
  const languageModel = model as LanguageModel;
  let reference = bare.get(languageModel);
  if (!reference)
    bare.set(
      languageModel,
      (reference = { provider: languageModel.provider, modelId: languageModel.modelId, languageModel, settings: {} }),
    );
  return reference;
}

/** Whether the model is an AI SDK language model (called through its `doStream` / `doGenerate`). */
export function isAiSdkModel(model: ResolvedModel): model is AiSdkModelReference {
  return "languageModel" in model;
}

/** The model's prices, when it has them. */
export function pricingOf(model: AgentModel): ModelPricing | undefined {
  return resolveModel(model).settings?.pricing;
}

/** What of the model decides behaviour, for `agent.version`: provider, id and settings, without where it is, its key or its prices. */
export function describeModel(model: AgentModel): { provider: string; id: string; settings: Record<string, unknown> } {
  const resolved = resolveModel(model);
  const { pricing: _price, ...rest } = resolved.settings as Record<string, unknown>;
  const { baseURL: _where, apiKey: _key, ...settings } = rest;
  return { provider: resolved.provider, id: resolved.modelId, settings: isAiSdkModel(resolved) ? rest : settings };
}
