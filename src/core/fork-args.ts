/** What the `agentRun` workflow gets for a fork, as plain data. Workflow-safe. */
import type { ContractState } from "./contract-state.js";
import type { ForkedFrom, ToolCallRecord, TraceEvent } from "./types.js";

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
}
