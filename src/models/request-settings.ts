/** Worker-side, pure: `ModelSettings` as Chat Completions request fields. */
import type { ModelSettings } from "../core/model-settings.js";

/** Where in the run the call is, for the settings that depend on it. */
export interface CallPosition {
  /** The agent has tools (tool settings are sent only then). */
  hasTools: boolean;
  /** The first trip of the run (a session: of the message). */
  firstTrip: boolean;
}

/** The model's settings with a run's on top: the run's fields win. */
export function mergeModelSettings(model: ModelSettings, run: ModelSettings | undefined): ModelSettings {
  return run
    ? {
        ...model,
        ...run,
        ...(model.extraBody || run.extraBody ? { extraBody: { ...model.extraBody, ...run.extraBody } } : {}),
      }
    : model;
}

/** A tool choice that makes the model call a tool: kept on the first trip only unless `resetToolChoice` is false. */
export function forcesToolCall(choice: ModelSettings["toolChoice"]): boolean {
  return choice === "required" || typeof choice === "object";
}

/** The request body fields for these settings. */
export function requestFields(settings: ModelSettings, position: CallPosition): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...settings.extraBody };
  const set = (key: string, value: unknown) => value !== undefined && (fields[key] = value);
  set("temperature", settings.temperature);
  set("max_completion_tokens", settings.maxTokens);
  set("top_p", settings.topP);
  set("top_k", settings.topK);
  set("seed", settings.seed);
  set("stop", settings.stop);
  set("presence_penalty", settings.presencePenalty);
  set("frequency_penalty", settings.frequencyPenalty);
  set("reasoning_effort", settings.reasoningEffort);
  if (position.hasTools) {
    set("parallel_tool_calls", settings.parallelToolCalls);
    const choice = settings.toolChoice;
    const applies =
      choice !== undefined && (!forcesToolCall(choice) || position.firstTrip || settings.resetToolChoice === false);
    if (applies)
      fields.tool_choice = typeof choice === "object" ? { type: "function", function: { name: choice.tool } } : choice;
  }
  return fields;
}
