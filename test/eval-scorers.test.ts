/** Issue 4, items 2 and 3: the built-in scorers on records (the eval runs them on real runs in eval.test.ts). */
import { describe, expect, it } from "vitest";
import { ai, EvalOptionsError, type EvalRecord, type ScorerFunction, type ToolCallRecord } from "../src/index.js";

function record(
  input: string,
  reply: string,
  calls: Array<[name: string, status: ToolCallRecord["status"]]> = [],
): EvalRecord {
  return {
    case: { name: "case", input },
    input,
    trial: 1,
    reply,
    toolCalls: calls.map(([name, status], i) => ({
      id: `call_${i}`,
      name,
      input: {},
      status,
      trip: 1,
      ...(status === "refused" ? { reason: "not in the library" } : {}),
      ...(status === "failed" ? { error: "db down" } : {}),
    })),
    messages: [],
    trace: [],
    stopReason: "answered",
    trips: 1,
    workflowId: "wf",
    runId: "run",
  };
}

const score = (scorer: ScorerFunction, r: EvalRecord) => scorer(r);

describe("ai.eval.requiredToolCalled({ tools, intents?, require? })", () => {
  const scorer = ai.eval.requiredToolCalled({ tools: ["update_plan"], intents: [/\bswap\b/i] });

  it('fails with exactly "required tool not called" on an action request without a successful required call, with the missing tools and observed calls as evidence', () => {
    expect(score(scorer, record("Swap squats for lunges", "Want me to swap that?"))).toEqual({
      pass: false,
      reason: "required tool not called",
      evidence: { intent: "/\\bswap\\b/i", missingTools: ["update_plan"], toolCalls: [] },
    });
  });

  it("passes when a required tool call succeeded", () => {
    expect(score(scorer, record("Swap squats for lunges", "Done.", [["update_plan", "ok"]]))).toMatchObject({
      pass: true,
    });
  });

  it("a refused or failed call of the required tool does not count", () => {
    const result = score(
      scorer,
      record("Swap squats for lunges", "Sorry.", [
        ["update_plan", "refused"],
        ["update_plan", "failed"],
      ]),
    );
    expect(result).toMatchObject({
      pass: false,
      reason: "required tool not called",
      evidence: {
        toolCalls: [
          expect.objectContaining({ status: "refused", reason: "not in the library" }),
          expect.objectContaining({ status: "failed", error: "db down" }),
        ],
      },
    });
  });

  it("an input that matches no intent is not an action request: not applicable, not passed", () => {
    expect(score(scorer, record("What do squats work?", "Your legs."))).toEqual({
      applicable: false,
      reason: "not an action request",
    });
  });

  it("without intents every case is an action request", () => {
    const always = ai.eval.requiredToolCalled({ tools: ["update_plan"] });
    expect(score(always, record("What do squats work?", "Your legs."))).toMatchObject({
      pass: false,
      reason: "required tool not called",
    });
  });

  it("intents may be substrings (case-insensitive) or predicates, as in actWhenAsked", () => {
    const bySubstring = ai.eval.requiredToolCalled({ tools: ["update_plan"], intents: ["SWAP"] });
    const byPredicate = ai.eval.requiredToolCalled({
      tools: ["update_plan"],
      intents: [(input) => input.startsWith("Swap")],
    });
    expect(score(bySubstring, record("please swap them", "ok"))).toMatchObject({
      pass: false,
      evidence: { intent: "SWAP" },
    });
    expect(score(byPredicate, record("Swap them", "ok"))).toMatchObject({ pass: false });
    expect(score(byPredicate, record("swap them", "ok"))).toMatchObject({ applicable: false });
  });

  it('require "any" (default) is met by one of the tools; "all" needs each of them', () => {
    const tools = ["update_plan", "log_change"];
    const one = record("Swap squats", "Done.", [
      ["update_plan", "ok"],
      ["log_change", "failed"],
    ]);
    expect(score(ai.eval.requiredToolCalled({ tools }), one)).toMatchObject({ pass: true });
    expect(score(ai.eval.requiredToolCalled({ tools, require: "all" }), one)).toMatchObject({
      pass: false,
      reason: "required tool not called",
      evidence: { missingTools: ["log_change"] },
    });
    expect(
      score(
        ai.eval.requiredToolCalled({ tools, require: "all" }),
        record("Swap", "Done.", [
          ["log_change", "ok"],
          ["update_plan", "ok"],
        ]),
      ),
    ).toMatchObject({ pass: true });
  });

  it("is named requiredToolCalled unless given a name, and needs at least one tool", () => {
    expect(scorer.name).toBe("requiredToolCalled");
    expect(ai.eval.requiredToolCalled({ tools: ["a"], name: "logs-change" }).name).toBe("logs-change");
    expect(() => ai.eval.requiredToolCalled({ tools: [] })).toThrow(EvalOptionsError);
  });
});

describe("ai.eval.changeClaimedWithoutToolCall({ tools?, claims? })", () => {
  const scorer = ai.eval.changeClaimedWithoutToolCall({ tools: ["update_plan"] });

  it('fails with exactly "change claimed without a tool call" when the reply claims a change and no change tool completed, with the claim as evidence', () => {
    expect(score(scorer, record("Swap squats", "Done — squats are now lunges."))).toEqual({
      pass: false,
      reason: "change claimed without a tool call",
      evidence: { claim: "Done — squats are now lunges.", claimPattern: "done", toolCalls: [] },
    });
  });

  it("passes when a change tool completed, and when nothing is claimed", () => {
    expect(score(scorer, record("Swap squats", "I've swapped it.", [["update_plan", "ok"]]))).toMatchObject({
      pass: true,
      evidence: { claim: "I've swapped it." },
    });
    expect(score(scorer, record("Swap squats", "Want me to swap that?"))).toEqual({
      pass: true,
      reason: "no change claimed",
    });
  });

  it("a refused or failed change tool call, or a completed call of another tool, does not back the claim", () => {
    expect(
      score(
        scorer,
        record("Swap", "I've swapped it.", [
          ["update_plan", "refused"],
          ["update_plan", "failed"],
          ["lookup", "ok"],
        ]),
      ),
    ).toMatchObject({
      pass: false,
      reason: "change claimed without a tool call",
    });
  });

  it("without tools, any completed tool call backs the claim", () => {
    const any = ai.eval.changeClaimedWithoutToolCall();
    expect(score(any, record("Swap", "Your plan has been updated.", [["lookup", "ok"]]))).toMatchObject({ pass: true });
    expect(score(any, record("Swap", "Your plan has been updated.", [["lookup", "failed"]]))).toMatchObject({
      pass: false,
    });
  });

  it("claims replaces the default patterns", () => {
    const booked = ai.eval.changeClaimedWithoutToolCall({ claims: [/\bbooked\b/i] });
    expect(score(booked, record("Book", "You're booked for 6pm."))).toMatchObject({
      pass: false,
      evidence: { claim: "booked", claimPattern: "pattern:\\bbooked\\b" },
    });
    expect(score(booked, record("Swap", "I've swapped it."))).toMatchObject({
      pass: true,
      reason: "no change claimed",
    });
  });
});
