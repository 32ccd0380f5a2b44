/**
 * What to do after an answer that would end the run. Pure functions over plain data, imported by
 * the workflow and unit-tested without a server.
 *
 * Precedence: backstops first, then the refusal retry, then the output repair, then actWhenAsked;
 * one re-prompt per answer; every re-prompt needs a trip left; an option that did not send keeps
 * its budget.
 */
import type { ContractSpec, ContractState, PendingRefusal } from "../core/contract-state.js";
import type { OutputCheck } from "../core/activity-types.js";
import type { RepromptKind, ToolCallRecord } from "../core/types.js";

/** Whether the run has acted: a required tool call succeeded (`any`), or each of them did (`all`). */
export function requiredToolsSatisfied(
  requiredTools: string[],
  require: "any" | "all",
  toolCalls: ToolCallRecord[],
): boolean {
  const succeeded = new Set(toolCalls.filter((call) => call.status === "ok").map((call) => call.name));
  return require === "all"
    ? requiredTools.every((tool) => succeeded.has(tool))
    : requiredTools.some((tool) => succeeded.has(tool));
}

/** Updates pending refusals with a batch of calls: a refusal is remembered, a later success of the same tool clears it. */
export function updatePendingRefusals(pending: PendingRefusal[], calls: ToolCallRecord[]): PendingRefusal[] {
  let next = pending;
  for (const call of calls) {
    if (call.status === "refused")
      next = [...next.filter((r) => r.tool !== call.name), { tool: call.name, reason: call.reason ?? "refused" }];
    else if (call.status === "ok") next = next.filter((r) => r.tool !== call.name);
  }
  return next;
}

/** The refusal a retry prompt would quote now (the latest pending one), or undefined when the option cannot fire. */
export function refusalCandidate(spec: ContractSpec, state: ContractState): PendingRefusal | undefined {
  if (!spec.refusal || state.refusalRetries >= spec.refusal.retries) return undefined;
  return state.pendingRefusals.at(-1);
}

/** Whether actWhenAsked would re-prompt now. */
export function actWhenAskedCandidate(spec: ContractSpec, state: ContractState, toolCalls: ToolCallRecord[]): boolean {
  const act = spec.actWhenAsked;
  if (!act || !state.actionRequest || state.actReprompts >= act.maxReprompts) return false;
  return !requiredToolsSatisfied(act.requiredTools, act.require, toolCalls);
}

/** Backstops of a phase that have not run yet, in declaration order. */
export function backstopsToDetect(spec: ContractSpec, state: ContractState, phase: "before" | "after"): string[] {
  return spec.backstops.filter((b) => b.phase === phase && !state.backstopsRan.includes(b.name)).map((b) => b.name);
}

/** What each option offers on this answer: backstop prompts, and the hint of each option that can fire. */
export interface RepromptOffers {
  backstopPrompts: Array<{ name: string; prompt: string }>;
  refusal?: { tool: string; text: string };
  outputRepair?: { text: string };
  actWhenAsked?: { text: string };
}

/** The decision on an answer that would end the run. */
export type Decision =
  { type: "end"; withheld?: RepromptKind } | { type: "reprompt"; kind: RepromptKind; text: string; source?: string };

/** Picks the one re-prompt to send, by precedence, if a trip is left; otherwise the run ends. */
export function decideReprompt(offers: RepromptOffers, tripsLeft: number): Decision {
  const chosen: Decision | undefined = offers.backstopPrompts.length
    ? {
        type: "reprompt",
        kind: "backstop",
        text: offers.backstopPrompts.map((b) => b.prompt).join("\n\n"),
        source: offers.backstopPrompts.map((b) => b.name).join(", "),
      }
    : offers.refusal
      ? { type: "reprompt", kind: "refusal-retry", text: offers.refusal.text, source: offers.refusal.tool }
      : offers.outputRepair
        ? { type: "reprompt", kind: "output-repair", text: offers.outputRepair.text }
        : offers.actWhenAsked
          ? { type: "reprompt", kind: "act-when-asked", text: offers.actWhenAsked.text }
          : undefined;
  if (!chosen) return { type: "end" };
  if (tripsLeft < 1) return { type: "end", withheld: (chosen as { kind: RepromptKind }).kind };
  return chosen;
}

/** Spends the budget of the option that sent a re-prompt. */
export function spendBudget(state: ContractState, kind: RepromptKind): void {
  if (kind === "refusal-retry") state.refusalRetries += 1;
  if (kind === "act-when-asked") state.actReprompts += 1;
  if (kind === "output-repair") state.outputRepairs = (state.outputRepairs ?? 0) + 1;
}

/** Whether an output repair would re-prompt now: the answer is invalid and repairs are left. */
export function outputRepairCandidate(
  spec: ContractSpec,
  state: ContractState,
  check: OutputCheck | undefined,
): check is { ok: false; issues: string } {
  if (!check || check.ok || !spec.output) return false;
  return (state.outputRepairs ?? 0) < spec.output.retries;
}
