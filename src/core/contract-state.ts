/** The tool-use contract as plain data: what an agent asks for, and what a run has used. Workflow-safe. */

/** The contract options of an agent, reduced to data the workflow can decide on. */
export interface ContractSpec {
  actWhenAsked?: { requiredTools: string[]; require: "any" | "all"; maxReprompts: number };
  /** Present when `onToolRefusal` is on. */
  refusal?: { retries: number };
  backstops: Array<{ name: string; phase: "before" | "after" }>;
  /** `onInvalidOutput`, with defaults; applies when the run has an output schema. */
  output?: { retries: number; onFailure: "error" | "result" };
}

/** A refusal not yet cleared by a later successful call of the same tool. */
export interface PendingRefusal {
  tool: string;
  reason: string;
}

/** Per-run budgets and memory of the contract; part of the run state, so it survives crashes and replays. */
export interface ContractState {
  /** The run's input matched an `actWhenAsked` intent. */
  actionRequest: boolean;
  /** actWhenAsked re-prompts sent. */
  actReprompts: number;
  /** Refusal retry prompts sent. */
  refusalRetries: number;
  /** Refusals in the order they happened, at most one per tool. */
  pendingRefusals: PendingRefusal[];
  /** Backstops that ran (each at most once per run). */
  backstopsRan: string[];
  /** The JSON state shared by the run's backstops. */
  backstopState: Record<string, unknown>;
  /** Output repair re-prompts sent (absent in states carried by versions without typed output). */
  outputRepairs?: number;
}

/** A fresh contract state. */
export function initialContractState(): ContractState {
  return {
    actionRequest: false,
    actReprompts: 0,
    refusalRetries: 0,
    pendingRefusals: [],
    backstopsRan: [],
    backstopState: {},
  };
}
