import { describe, expect, it } from "vitest";
import { resultOf, toolOutcomeOf, unknownKind, type ToolOutcome, type UntaggedToolOutcome } from "./tool-outcome.js";

/** Each shape as the committed fixtures hold it (test/fixtures/histories), untagged, beside its tagged form. */
const shapes: Array<[string, UntaggedToolOutcome, ToolOutcome]> = [
  ["a result", { output: { ok: true }, status: "ok" }, { kind: "result", output: { ok: true }, status: "ok" }],
  [
    "a whole record (histories before slim results)",
    { id: "call_0_0", name: "update_plan", trip: 1, input: { to: "lunges" }, status: "refused", reason: "r" },
    {
      kind: "result",
      id: "call_0_0",
      name: "update_plan",
      trip: 1,
      input: { to: "lunges" },
      status: "refused",
      reason: "r",
    } as ToolOutcome,
  ],
  [
    "an approval request",
    { approvalRequired: { input: { amount: 42 }, timeoutMs: 60000 } },
    { kind: "approval-required", input: { amount: 42 }, timeoutMs: 60000 },
  ],
  [
    "an approval request without a timeout",
    { approvalRequired: { input: { amount: 42 } } },
    { kind: "approval-required", input: { amount: 42 } },
  ],
  [
    "a sub-agent request",
    { subAgentCall: { input: { message: "Invoice 7?" }, agent: "billing", message: "Invoice 7?" } },
    { kind: "sub-agent", input: { message: "Invoice 7?" }, agent: "billing", message: "Invoice 7?" },
  ],
  ["a handoff", { handoff: { input: {}, to: "closer" } }, { kind: "handoff", input: {}, to: "closer" }],
  [
    "a handoff whose inputFilter trimmed the conversation",
    { handoff: { input: {}, to: "billing", messages: [{ role: "user", content: "Help me" }] } },
    { kind: "handoff", input: {}, to: "billing", messages: [{ role: "user", content: "Help me" }] },
  ],
];

describe("toolOutcomeOf: tool.execute's result as a tagged outcome", () => {
  for (const [label, untagged, tagged] of shapes) {
    it(`reads ${label} recorded before the tag as the tagged outcome`, () => {
      expect(toolOutcomeOf(untagged)).toEqual(tagged);
    });
  }

  it("returns a tagged outcome as it is", () => {
    for (const [, , tagged] of shapes) expect(toolOutcomeOf(tagged)).toBe(tagged);
  });

  it("a result without its tag is what the run's record is built from", () => {
    expect(resultOf({ kind: "result", input: "{", status: "refused", reason: "r" })).toEqual({
      input: "{",
      status: "refused",
      reason: "r",
    });
  });

  it("an exhaustive switch fails loudly on a kind it does not know", () => {
    expect(() => unknownKind({ kind: "later" } as never)).toThrow('unknown kind: {"kind":"later"}');
  });
});
