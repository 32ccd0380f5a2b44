/** The plain-data settings of a model call, shared by the client, the workflow and the model call. Workflow-safe. */

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
  /**
   * Sample from the K likeliest tokens only (the AI SDK's `topK`; Chat Completions: `top_k`, which
   * compatible servers such as vLLM and llama.cpp take and OpenAI's own API refuses).
   */
  topK?: number;
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
