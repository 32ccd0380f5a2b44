import type { ContractSpec } from "./contract-state.js";
import type { Budget } from "./usage.js";

/** The plain-data view of an agent that the workflow needs. Workflow-safe. */
export interface AgentSpec {
  name: string;
  /** The model id, for activity summaries and the trace. */
  modelId: string;
  maxTrips: number;
  /** Start-to-close timeouts of model and tool call attempts, and the heartbeat timeout, in Temporal's duration format. */
  timeouts: { model: string | number; tool: string | number; heartbeat: string | number };
  /** Set the durable-agent search attributes (they must be registered on the server). */
  searchAttributes: boolean;
  /** The contract options (actWhenAsked, onToolRefusal, backstops) as data. */
  contract: ContractSpec;
  /** The agent's budget; a run's own budget overrides its fields. */
  budget?: Budget;
  /** `instructions` is a function: model calls need the request's input for it. */
  dynamicInstructions?: boolean;
}
