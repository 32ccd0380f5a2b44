/** The turn a backstop's `detect` sees, built by the workflow and sent to the `contract.evaluate` activity. Workflow-safe. */
import type { Message, ToolCallRecord } from "./types.js";

/** What a backstop's `detect` sees. */
export interface BackstopTurn {
  phase: "before" | "after";
  runId: string;
  input: string;
  /** The answer that would end the run (after-phase only). */
  reply?: string;
  tripIndex: number;
  toolCalls: ToolCallRecord[];
  messages: Message[];
  /** The run's context (`run(input, { context })`), when it has one. */
  context?: unknown;
}
