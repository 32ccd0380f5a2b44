/** What the `agentRun` workflow gets for a fork, as plain data. Workflow-safe. */
import type { ContractState } from "./contract-state.js";
import type { ForkedFrom, ToolCallRecord, TraceEvent } from "./types.js";
import type { ModelSettings } from "./model-settings.js";

/** What a person changed for a fork (`ai.fork(id, { instructions, model, modelSettings })`), recorded in its input. */
export interface ForkChanges {
  /** The agent it goes on with, when not the recorded run's. */
  agent?: string;
  /** Instructions (the system prompt) instead of the agent's. */
  instructions?: string;
  /** A model id instead of the agent's model's. */
  model?: string;
  /** Model settings over the recorded run's. */
  modelSettings?: ModelSettings;
}

/** A run's own instructions or model id, over its agent's: every model call of the run uses them. */
export interface RunOverrides {
  /** The system prompt, instead of the agent's instructions. */
  instructions?: string;
  /** The model id, instead of the agent's model's (an `ai.openai()` model). */
  modelId?: string;
}

/** What the `agentRun` workflow gets for a fork (`AgentRunArgs.fork`); its messages are the run's `messages`. */
export interface ForkArgs {
  from: ForkedFrom;
  /** The recorded trips before `atTrip` (so `maxTrips` counts the whole conversation). */
  trips: number;
  /** The recorded tool calls and trace before `atTrip`. */
  toolCalls: ToolCallRecord[];
  trace: TraceEvent[];
  /** The user's request (the recorded run's last input message's text), for intents and backstops. */
  input: string;
  /** The budgets the recording had used before `atTrip`: re-prompts sent, backstops run, refusals pending. */
  contract: ContractState;
  /** What was changed for the fork, as asked (the run's `overrides` and `modelSettings` carry the effect). */
  changes?: ForkChanges;
}
