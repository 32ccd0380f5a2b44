import { defaultClaimPatterns, findClaim, type Claim } from "../claim-patterns.js";
import { observeToolCalls } from "../eval-record.js";
import { defineScorer, type ScorerFunction } from "../scorer.js";

/** The specification's failure message of `changeClaimedWithoutToolCall`. */
export const CHANGE_CLAIMED_WITHOUT_TOOL_CALL = "change claimed without a tool call";

/** Options of `ai.eval.changeClaimedWithoutToolCall()`. */
export interface ChangeClaimedWithoutToolCallOptions {
  /** Tools that make changes. Default: any completed (status `ok`) tool call backs a claim. */
  tools?: string[];
  /** Replaces `defaultClaimPatterns` (see `claim-patterns.ts` for how each kind of entry is applied). */
  claims?: Claim[];
  /** The scorer's name in reports. Default `"changeClaimedWithoutToolCall"`. */
  name?: string;
}

/**
 * Fails with exactly "change claimed without a tool call" when the reply says something was
 * changed ("I've swapped it", "has been updated") and no change tool completed (status `ok`).
 * A reply that claims nothing passes.
 */
export function changeClaimedWithoutToolCall(options: ChangeClaimedWithoutToolCallOptions = {}): ScorerFunction {
  const { tools, claims = defaultClaimPatterns } = options;
  return defineScorer(options.name ?? "changeClaimedWithoutToolCall", (record) => {
    const claim = findClaim(record.reply, claims);
    if (!claim) return { pass: true, reason: "no change claimed" };
    const backed = record.toolCalls.some(
      (call) => call.status === "ok" && (tools === undefined || tools.includes(call.name)),
    );
    const evidence = { claim: claim.text, claimPattern: claim.pattern, toolCalls: observeToolCalls(record.toolCalls) };
    return backed ? { pass: true, evidence } : { pass: false, reason: CHANGE_CLAIMED_WITHOUT_TOOL_CALL, evidence };
  });
}
