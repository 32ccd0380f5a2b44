import { AgentOptionsError } from "../errors.js";
import { checkKnownKeys, type KnownKeys } from "../options/known-keys.js";
import { MODEL_SETTING_KEYS, validateModelSettings, type OpenAIModelSettings } from "./model-settings.js";

export type { OpenAIModelSettings } from "./model-settings.js";

/** The keys of `OpenAIModelSettings`, checked by `ai.openai()`: a new setting goes here too (the typecheck insists). */
export const OPENAI_SETTING_KEYS = {
  baseURL: true,
  apiKey: true,
  pricing: true,
  responseFormatWithTools: true,
  ...MODEL_SETTING_KEYS,
} as const satisfies Record<keyof OpenAIModelSettings, true> & KnownKeys;

/** A model reference: which model, and how the worker reaches it. Create with `ai.openai()`. */
export interface ModelReference {
  readonly provider: "openai";
  readonly modelId: string;
  readonly settings: OpenAIModelSettings;
}

/** A model reference for the OpenAI Chat Completions API with tool calling; throws `AgentOptionsError` for a setting it does not know. */
export function openai(modelId: string, settings: OpenAIModelSettings = {}): ModelReference {
  if (typeof settings !== "object" || settings === null)
    throw new AgentOptionsError(
      "settings",
      `ai.openai("${modelId}", settings): settings must be an object { baseURL?, apiKey?, temperature?, maxTokens?, pricing?, ... }`,
    );
  checkKnownKeys(settings, OPENAI_SETTING_KEYS, `ai.openai("${modelId}")`);
  validateModelSettings(settings, `ai.openai("${modelId}") settings`);
  return { provider: "openai", modelId, settings };
}
