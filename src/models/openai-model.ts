import type { ModelPricing } from "../contract/usage.js";
import { validateModelSettings } from "../agent/validate-options.js";

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
  /** Prices per million tokens: each call's `usage.costUsd`, and `budget.maxCostUsd`, come from them. */
  pricing?: ModelPricing;
}

/** A model reference: which model, and how the worker reaches it. Create with `ai.openai()`. */
export interface ModelReference {
  readonly provider: "openai";
  readonly modelId: string;
  readonly settings: OpenAIModelSettings;
}

/** A model reference for the OpenAI Chat Completions API with tool calling. */
export function openai(modelId: string, settings: OpenAIModelSettings = {}): ModelReference {
  validateModelSettings(settings, `ai.openai("${modelId}") settings`);
  return { provider: "openai", modelId, settings };
}
