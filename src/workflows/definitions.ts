/** Names and types shared by the workflow and its clients. Workflow-safe. */
import { defineQuery } from "@temporalio/workflow";
import type { Message, TraceEvent } from "../contract/types.js";

/** The argument of the `agentRun` workflow. */
export interface AgentRunArgs {
  /** The agent's name: the worker looks its definition up by it. */
  agent: string;
  /** The conversation so far, ending in the user's turn. */
  messages: Message[];
  /** Publish answer text to the run's stream as the model produces it (costs history events per batch). */
  streamText?: boolean;
}

/** Run-stream items from an offset, in the Workflow Streams wire format (base64 `Payload` protos). */
export interface StreamTail {
  items: Array<{ offset: number; data: string }>;
}

/**
 * The stream's items from an offset. Subscribers use it once a run has closed, to take the
 * events published after their last poll (a closed workflow no longer answers polls).
 */
export const streamTailQuery = defineQuery<StreamTail, [number]>("run-events-tail");

/** The run's trace so far, readable while the run is live. */
export const traceQuery = defineQuery<TraceEvent[]>("trace");
