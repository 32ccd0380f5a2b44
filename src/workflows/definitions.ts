/** Names and types shared by the workflow and its clients. Workflow-safe. */
import { defineQuery } from "@temporalio/workflow";
import type { Message, TraceEvent } from "../contract/types.js";

/** The argument of the `agentRun` workflow. */
export interface AgentRunArgs {
  /** The agent's name: the worker looks its definition up by it. */
  agent: string;
  /** The conversation so far, ending in the user's turn. */
  messages: Message[];
}

/** The run's trace so far, readable while the run is live. */
export const traceQuery = defineQuery<TraceEvent[]>("trace");
