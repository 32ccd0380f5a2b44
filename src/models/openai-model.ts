import { AgentOptionsError } from "../errors.js";
import { checkKnownKeys, type KnownKeys } from "../agent/known-keys.js";
import type { ModelPricing } from "../contract/usage.js";
import { validateModelSettings } from "../agent/validate-options.js";

/** Settings of an OpenAI-compatible Chat Completions model: where it is, its prices, and its default `ModelSettings`. Read on the worker only. */
export interface OpenAIModelSettings extends ModelSettings {
  /** The API base URL; default `OPENAI_BASE_URL`, else OpenAI's. Any compatible server (vLLM, Ollama, llama.cpp) works. */
  baseURL?: string;
  /** The API key; default `OPENAI_API_KEY`. Stays on the worker: it is never written to workflow history. */
  apiKey?: string;
  /** Prices per million tokens: each call's `usage.costUsd`, and `budget.maxCostUsd`, come from them. */
  pricing?: ModelPricing;
  /**
   * Send `response_format: json_schema` on a call that also offers tools. Default true. Set false
   * for a server that cannot combine them (llama.cpp's `llama-server` aborts when the answer is
   * the typed output): such a call puts the schema in the instructions instead, as
   * `outputMode: "prompt"` does, and the answer is validated the same way. docs/local-models.md.
   */
  responseFormatWithTools?: boolean;
}

/**
 * Sampling and tool settings, on `ai.openai(id, settings)` and per run (`run(input, { modelSettings
 * })`, whose fields win). Each is sent as the Chat Completions field of the same meaning.
 */
export interface ModelSettings {
  /** Sampling temperature (`temperature`). */
  temperature?: number;
  /** Upper bound on tokens per answer (`max_completion_tokens`). */
  maxTokens?: number;
  /**
   * Whether and which tool the model must call (`tool_choice`): `"auto"`, `"required"`, `"none"` or
   * `{ tool: name }`. A choice that forces a call (`"required"`, `{ tool }`) applies to the first
   * trip of a run only (else the loop could never end with an answer), unless `resetToolChoice` is false.
   */
  toolChoice?: "auto" | "required" | "none" | { tool: string };
  /** Keep a forcing `toolChoice` on every trip instead of the first only. Default true (reset after the first trip). */
  resetToolChoice?: boolean;
  /** Whether the model may ask for several tool calls in one answer (`parallel_tool_calls`). */
  parallelToolCalls?: boolean;
  /** Nucleus sampling (`top_p`). */
  topP?: number;
  /** Best-effort deterministic sampling (`seed`). */
  seed?: number;
  /** Up to 4 sequences where the model stops (`stop`). */
  stop?: string | string[];
  /** `presence_penalty`, -2 to 2. */
  presencePenalty?: number;
  /** `frequency_penalty`, -2 to 2. */
  frequencyPenalty?: number;
  /** For reasoning models (`reasoning_effort`). */
  reasoningEffort?: "minimal" | "low" | "medium" | "high";
  /** Extra fields sent in the request body as they are, for a compatible server's own options (e.g. vLLM's `top_k`). */
  extraBody?: Record<string, unknown>;
}

/** The keys of `OpenAIModelSettings`, checked by `ai.openai()`: a new setting goes here too (the typecheck insists). */
export const OPENAI_SETTING_KEYS = {
  baseURL: true,
  apiKey: true,
  pricing: true,
  responseFormatWithTools: true,
  temperature: true,
  maxTokens: true,
  toolChoice: true,
  resetToolChoice: true,
  parallelToolCalls: true,
  topP: true,
  seed: true,
  stop: true,
  presencePenalty: true,
  frequencyPenalty: true,
  reasoningEffort: true,
  extraBody: true,
} as const satisfies Record<keyof OpenAIModelSettings, true> & KnownKeys;

/** A model reference: which model, and how the worker reaches it. Create with `ai.openai()`. */
export interface ModelReference {
  readonly provider: "openai";
  readonly modelId: string;
  readonly settings: OpenAIModelSettings;
}

/** A model reference for the OpenAI Chat Completions API with tool calling; throws `AgentOptionsError` for a setting it does not know. */
export function openai(modelId: string, settings: OpenAIModelSettings = {}): ModelReference {
  if (typeof settings !== "object" || settings === null) throw new AgentOptionsError("settings", `ai.openai("${modelId}", settings): settings must be an object { baseURL?, apiKey?, temperature?, maxTokens?, pricing?, ... }`);
  checkKnownKeys(settings, OPENAI_SETTING_KEYS, `ai.openai("${modelId}")`);
  validateModelSettings(settings, `ai.openai("${modelId}") settings`);
  return { provider: "openai", modelId, settings };
}
