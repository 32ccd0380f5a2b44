/** What the Temporal UI shows of a live run: current details, and search attributes when enabled. */
import { patched, setCurrentDetails, upsertSearchAttributes } from "@temporalio/workflow";
import type { AgentSpec } from "../core/agent-spec.js";
import type { ContractState } from "../core/contract-state.js";
import type { RunState } from "../core/run-state.js";
import { SEARCH_ATTRIBUTES } from "../core/search-attributes.js";
import type { StopReason } from "../core/types.js";
import type { RunUsage } from "../core/usage.js";

/** Marks histories whose runs upsert DurableAgentTokens after each model call. */
const USAGE_ATTRIBUTE_PATCH = "durable-agent.usage-search-attribute";
/** Marks histories whose runs upsert DurableAgentCostUsd with DurableAgentTokens (when the cost is known). */
const COST_ATTRIBUTE_PATCH = "durable-agent.cost-search-attribute";
/** Marks histories whose runs upsert DurableAgentBackstopRan when their first backstop runs. */
const BACKSTOP_ATTRIBUTE_PATCH = "durable-agent.backstop-search-attribute";

function usageLine(usage: RunUsage): string {
  const failed = usage.failedAttempts
    ? `, ${usage.failedAttempts.totalTokens} of them in ${usage.failedAttempts.attempts} failed attempt(s)`
    : "";
  const cost = usage.costUsd !== undefined ? ` · $${usage.costUsd}` : "";
  return `tokens used: ${usage.totalTokens} (${usage.inputTokens} in, ${usage.outputTokens} out${failed})${cost}`;
}

/** Tracks where a run is, for its current details, cancellation messages and search attributes. */
export class RunProgress {
  /** What the run is doing now, e.g. "trip 3: tool calls update_plan". */
  where = "starting";
  #waiting: string | undefined;
  /** Whether this run keeps DurableAgentTokens current (runs started before usage existed do not). */
  #tokensAttribute: boolean | undefined;
  /** Whether this run keeps DurableAgentCostUsd current (asked at the first model call with a cost). */
  #costAttribute: boolean | undefined;
  /** Whether DurableAgentBackstopRan is set (or, for a run from before it, was skipped). */
  #backstopFlagged = false;

  constructor(
    private readonly spec: AgentSpec,
    /** Read on each update: a session swaps in a fresh contract state per message, a handoff the next agent's spec. */
    private readonly ctx: { contract: ContractState; spec: AgentSpec },
    private readonly run: RunState,
  ) {
    if (spec.searchAttributes) {
      // Specs recorded before versions have none: their runs upsert the name alone, as they did.
      upsertSearchAttributes([
        { key: SEARCH_ATTRIBUTES.agent, value: spec.name },
        ...(spec.version !== undefined ? [{ key: SEARCH_ATTRIBUTES.version, value: spec.version }] : []),
      ]);
    }
    this.show();
  }

  /**
   * Runs one step of the loop, showing it as the run's current details. Not `async`: each promise
   * a workflow creates costs a stack trace in the SDK's promise hook, so this adds none.
   */
  step<T>(where: string, fn: () => Promise<T>): Promise<T> {
    this.where = where;
    this.show();
    return fn();
  }

  /** Shows that the run waits for a person (or, with undefined, that it no longer does). */
  waiting(what: string | undefined): void {
    this.#waiting = what;
    this.show();
  }

  /**
   * Shows the usage so far, and keeps DurableAgentTokens (and, once the run has a cost,
   * DurableAgentCostUsd, in the same upsert) current when search attributes are on.
   */
  usageChanged(): void {
    this.show();
    if (!this.spec.searchAttributes) return;
    this.#tokensAttribute ??= patched(USAGE_ATTRIBUTE_PATCH);
    if (!this.#tokensAttribute) return;
    const costUsd = this.run.usage?.costUsd;
    if (costUsd !== undefined) this.#costAttribute ??= patched(COST_ATTRIBUTE_PATCH);
    upsertSearchAttributes([
      { key: SEARCH_ATTRIBUTES.tokens, value: this.run.usage?.totalTokens ?? 0 },
      ...(costUsd !== undefined && this.#costAttribute ? [{ key: SEARCH_ATTRIBUTES.costUsd, value: costUsd }] : []),
    ]);
  }

  /** A backstop of the run is about to run: sets DurableAgentBackstopRan, once, when search attributes are on. */
  backstopRan(): void {
    if (this.#backstopFlagged || !this.spec.searchAttributes) return;
    this.#backstopFlagged = true;
    if (patched(BACKSTOP_ATTRIBUTE_PATCH))
      upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.backstopRan, value: true }]);
  }

  /** Shows the outcome, and records it in the search attributes. */
  finished(stopReason: StopReason): void {
    this.where = `finished: ${stopReason}`;
    this.show();
    if (!this.spec.searchAttributes) return;
    upsertSearchAttributes([
      { key: SEARCH_ATTRIBUTES.stopReason, value: stopReason },
      { key: SEARCH_ATTRIBUTES.trips, value: this.run.trips },
      { key: SEARCH_ATTRIBUTES.reprompts, value: this.run.trace.filter((e) => e.type === "reprompt").length },
      { key: SEARCH_ATTRIBUTES.refusals, value: this.run.toolCalls.filter((c) => c.status === "refused").length },
    ]);
  }

  private show(): void {
    const lastCall = this.run.toolCalls.at(-1);
    const reprompts = this.run.trace.filter((e) => e.type === "reprompt").map((e) => e.kind);
    setCurrentDetails(
      [
        `**${this.ctx.spec.name}**${this.ctx.spec.name !== this.spec.name ? ` (handed off from ${this.spec.name})` : ""} ` +
          `· trip ${this.run.trips} of ${this.spec.maxTrips} · now: ${this.where}`,
        ...(this.#waiting ? [`⏸ ${this.#waiting}`] : []),
        lastCall
          ? `last tool call: \`${lastCall.name}\` → ${lastCall.status}${lastCall.reason ? ` (${lastCall.reason})` : ""}`
          : "no tool calls yet",
        ...(this.run.usage ? [usageLine(this.run.usage)] : []),
        `re-prompts sent: ${reprompts.length}${reprompts.length ? ` (${reprompts.join(", ")})` : ""}; ` +
          `budgets used: actWhenAsked ${this.ctx.contract.actReprompts}, refusal retries ` +
          `${this.ctx.contract.refusalRetries}, backstops ran ${this.ctx.contract.backstopsRan.length}`,
      ].join("\n\n"),
    );
  }
}
