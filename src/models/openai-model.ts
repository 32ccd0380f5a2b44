import { AgentOptionsError } from "../errors.js";
import { checkKnownKeys, type KnownKeys } from "../agent/known-keys.js";

/** Settings of an OpenAI-compatible Chat Completions model. Read on the worker only. */
export interface OpenAIModelSettings {
  /** The API base URL; default `OPENAI_BASE_URL`, else OpenAI's. Any compatible server (vLLM, Ollama, llama.cpp) works. */
  baseURL?: string;
  /** The API key; default `OPENAI_API_KEY`. Stays on the worker: it is never written to workflow history. */
  apiKey?: string;
  /** Sampling temperature, passed through. */
  temperature?: number;
  /** Upper bound on tokens per answer, passed through as `max_completion_tokens`. */
  maxTokens?: number;
}

/** The keys of `OpenAIModelSettings`, checked by `ai.openai()`: a new setting goes here too (the typecheck insists). */
export const OPENAI_SETTING_KEYS = { baseURL: true, apiKey: true, temperature: true, maxTokens: true } as const satisfies Record<keyof OpenAIModelSettings, true> & KnownKeys;

/** A model reference: which model, and how the worker reaches it. Create with `ai.openai()`. */
export interface ModelReference {
  readonly provider: "openai";
  readonly modelId: string;
  readonly settings: OpenAIModelSettings;
}

/** A model reference for the OpenAI Chat Completions API with tool calling; throws `AgentOptionsError` for a setting it does not know. */
export function openai(modelId: string, settings: OpenAIModelSettings = {}): ModelReference {
  if (typeof settings !== "object" || settings === null) throw new AgentOptionsError("settings", `ai.openai("${modelId}", settings): settings must be an object { baseURL?, apiKey?, temperature?, maxTokens? }`);
  checkKnownKeys(settings, OPENAI_SETTING_KEYS, `ai.openai("${modelId}")`);
  return { provider: "openai", modelId, settings };
}
