/**
 * Model settings: the sampling and tool settings of a model call, and the settings of
 * `ai.openai()`, with their checks (shared by `ai.openai()`, `ai.agent()` and a run's options).
 * The plain-data `ModelSettings` itself is in the core (`core/model-settings.ts`): the workflow carries it.
 */
import type { ModelPricing } from "../core/usage.js";
import type { ModelSettings } from "../core/model-settings.js";
import { checkAmount, checkCount, fail } from "../options/option-checks.js";
import type { KnownKeys } from "../options/known-keys.js";

/** The keys of `ModelSettings`, checked on a run's `modelSettings`: a new setting goes here too (the typecheck insists). */
export const MODEL_SETTING_KEYS = {
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
  extraBody: true,
} as const satisfies Record<keyof ModelSettings, true> & KnownKeys;

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

function checkNumber(field: string, value: unknown, min: number, max: number): void {
  if (value !== undefined && (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max))
    fail(field, `must be a number from ${min} to ${max} (got ${JSON.stringify(value)})`);
}

const TOOL_CHOICES = ["auto", "required", "none"];
const PRICES = ["inputPerMillion", "outputPerMillion", "cachedInputPerMillion", "cacheWritePerMillion"];
const REASONING_EFFORTS = ["minimal", "low", "medium", "high"];

/** Checks the sampling and tool settings (`ai.openai` settings, or a run's `modelSettings`); `field` is where they were given. */
export function validateSamplingSettings(settings: ModelSettings, field: string): void {
  checkNumber(`${field}.temperature`, settings.temperature, 0, 2);
  checkCount(`${field}.maxTokens`, settings.maxTokens, 1);
  checkNumber(`${field}.topP`, settings.topP, 0, 1);
  checkCount(`${field}.topK`, settings.topK, 1);
  if (settings.seed !== undefined && !Number.isInteger(settings.seed))
    fail(`${field}.seed`, `must be a whole number (got ${JSON.stringify(settings.seed)})`);
  checkNumber(`${field}.presencePenalty`, settings.presencePenalty, -2, 2);
  checkNumber(`${field}.frequencyPenalty`, settings.frequencyPenalty, -2, 2);
  const stop = settings.stop;
  if (
    stop !== undefined &&
    typeof stop !== "string" &&
    !(Array.isArray(stop) && stop.length <= 4 && stop.every((s) => typeof s === "string"))
  ) {
    fail(`${field}.stop`, "must be a string or an array of up to 4 strings");
  }
  if (settings.reasoningEffort !== undefined && !REASONING_EFFORTS.includes(settings.reasoningEffort)) {
    fail(
      `${field}.reasoningEffort`,
      `must be one of ${REASONING_EFFORTS.join(", ")} (got ${JSON.stringify(settings.reasoningEffort)})`,
    );
  }
  if (settings.parallelToolCalls !== undefined && typeof settings.parallelToolCalls !== "boolean")
    fail(`${field}.parallelToolCalls`, "must be true or false");
  if (settings.resetToolChoice !== undefined && typeof settings.resetToolChoice !== "boolean")
    fail(`${field}.resetToolChoice`, "must be true or false");
  const choice = settings.toolChoice as unknown;
  const isTool =
    typeof choice === "object" && choice !== null && typeof (choice as { tool?: unknown }).tool === "string";
  if (choice !== undefined && !TOOL_CHOICES.includes(choice as string) && !isTool)
    fail(`${field}.toolChoice`, `must be "auto", "required", "none" or { tool: name } (got ${JSON.stringify(choice)})`);
  const extra = settings.extraBody as unknown;
  if (extra !== undefined && (typeof extra !== "object" || extra === null || Array.isArray(extra)))
    fail(`${field}.extraBody`, "must be an object of request body fields");
}

/** A `toolChoice` of `{ tool }` must name one of the agent's tools. */
export function validateToolChoice(settings: ModelSettings | undefined, toolNames: Set<string>, field: string): void {
  const choice = settings?.toolChoice;
  if (typeof choice === "object" && !toolNames.has(choice.tool))
    fail(
      `${field}.toolChoice`,
      `names "${choice.tool}", which is not one of the agent's tools (${[...toolNames].join(", ") || "none"})`,
    );
}

/** Checks the settings of `ai.openai(id, settings)`; `field` is where they were given. */
export function validateModelSettings(settings: OpenAIModelSettings | undefined, field: string): void {
  if (settings === undefined) return;
  if (typeof settings !== "object" || settings === null) fail(field, "model settings must be an object");
  validateSamplingSettings(settings, field);
  if (settings.responseFormatWithTools !== undefined && typeof settings.responseFormatWithTools !== "boolean")
    fail(`${field}.responseFormatWithTools`, "must be true or false");
  validatePricing(settings.pricing, `${field}.pricing`);
}

/** Checks a model's `pricing`, given at `field`. */
export function validatePricing(pricing: ModelPricing | undefined, field: string): void {
  if (pricing === undefined) return;
  if (typeof pricing !== "object" || pricing === null)
    fail(field, "must be { inputPerMillion, outputPerMillion, cachedInputPerMillion?, cacheWritePerMillion? }");
  for (const key of Object.keys(pricing)) {
    if (!PRICES.includes(key)) fail(`${field}.${key}`, `is not a price (prices are ${PRICES.join(", ")})`);
  }
  if (pricing.inputPerMillion === undefined || pricing.outputPerMillion === undefined)
    fail(field, "needs inputPerMillion and outputPerMillion (US dollars per million tokens)");
  for (const key of PRICES) checkAmount(`${field}.${key}`, pricing[key as keyof ModelPricing]);
}
