import { describe, expect, it } from "vitest";
import { initialContractState, type ContractSpec } from "../core/contract-state.js";
import {
  actWhenAskedCandidate,
  backstopsToDetect,
  decideReprompt,
  outputRepairCandidate,
  refusalCandidate,
  requiredToolsSatisfied,
  spendBudget,
  updatePendingRefusals,
} from "./decide.js";
import type { ToolCallRecord, ToolCallStatus } from "../core/types.js";

const call = (name: string, status: ToolCallStatus, reason?: string): ToolCallRecord => ({
  id: name,
  name,
  input: {},
  status,
  trip: 1,
  ...(reason ? { reason } : {}),
});
const spec: ContractSpec = {
  actWhenAsked: { requiredTools: ["a", "b"], require: "any", maxReprompts: 1 },
  refusal: { retries: 1 },
  backstops: [
    { name: "x", phase: "before" },
    { name: "y", phase: "after" },
    { name: "z", phase: "after" },
  ],
};

describe("requiredToolsSatisfied", () => {
  it('"any" needs one successful required call; "all" needs each; failed and refused calls do not count', () => {
    expect(requiredToolsSatisfied(["a", "b"], "any", [call("a", "ok")])).toBe(true);
    expect(requiredToolsSatisfied(["a", "b"], "all", [call("a", "ok")])).toBe(false);
    expect(requiredToolsSatisfied(["a", "b"], "all", [call("a", "ok"), call("b", "ok")])).toBe(true);
    expect(requiredToolsSatisfied(["a"], "any", [call("a", "failed"), call("a", "refused", "no")])).toBe(false);
    expect(requiredToolsSatisfied(["a"], "any", [call("c", "ok")])).toBe(false);
  });
});

describe("updatePendingRefusals", () => {
  it("remembers the latest refusal per tool, and a later success of the same tool clears it", () => {
    let pending = updatePendingRefusals([], [call("a", "refused", "r1"), call("b", "refused", "r2")]);
    expect(pending).toEqual([
      { tool: "a", reason: "r1" },
      { tool: "b", reason: "r2" },
    ]);
    pending = updatePendingRefusals(pending, [call("a", "refused", "r3")]);
    expect(pending).toEqual([
      { tool: "b", reason: "r2" },
      { tool: "a", reason: "r3" },
    ]);
    pending = updatePendingRefusals(pending, [call("a", "ok"), call("b", "failed")]);
    expect(pending).toEqual([{ tool: "b", reason: "r2" }]);
  });
});

describe("candidates", () => {
  it("refusal: the latest pending refusal while retries are left; none when the option is off", () => {
    const state = {
      ...initialContractState(),
      pendingRefusals: [
        { tool: "a", reason: "r1" },
        { tool: "b", reason: "r2" },
      ],
    };
    expect(refusalCandidate(spec, state)).toEqual({ tool: "b", reason: "r2" });
    expect(refusalCandidate({ ...spec, refusal: undefined }, state)).toBeUndefined();
    expect(refusalCandidate(spec, { ...state, refusalRetries: 1 })).toBeUndefined();
  });

  it("actWhenAsked: only for an action request with no required call succeeded and budget left", () => {
    const state = { ...initialContractState(), actionRequest: true };
    expect(actWhenAskedCandidate(spec, state, [])).toBe(true);
    expect(actWhenAskedCandidate(spec, state, [call("b", "ok")])).toBe(false);
    expect(actWhenAskedCandidate(spec, { ...state, actionRequest: false }, [])).toBe(false);
    expect(actWhenAskedCandidate(spec, { ...state, actReprompts: 1 }, [])).toBe(false);
    expect(
      actWhenAskedCandidate(
        { ...spec, actWhenAsked: { requiredTools: ["a"], require: "any", maxReprompts: 0 } },
        state,
        [],
      ),
    ).toBe(false);
  });

  it("backstops: those of the phase that have not run, in declaration order", () => {
    expect(backstopsToDetect(spec, initialContractState(), "after")).toEqual(["y", "z"]);
    expect(backstopsToDetect(spec, { ...initialContractState(), backstopsRan: ["y"] }, "after")).toEqual(["z"]);
    expect(backstopsToDetect(spec, initialContractState(), "before")).toEqual(["x"]);
  });
});

describe("decideReprompt", () => {
  const all = {
    backstopPrompts: [
      { name: "y", prompt: "P1" },
      { name: "z", prompt: "P2" },
    ],
    refusal: { tool: "a", text: "R" },
    actWhenAsked: { text: "A" },
  };

  it("backstops go first, joining their prompts in declaration order", () => {
    expect(decideReprompt(all, 1)).toEqual({ type: "reprompt", kind: "backstop", text: "P1\n\nP2", source: "y, z" });
  });
  it("the output repair goes after the refusal retry and before actWhenAsked", () => {
    const repair = { outputRepair: { text: "O" } };
    expect(decideReprompt({ ...all, ...repair, backstopPrompts: [] }, 1)).toMatchObject({ kind: "refusal-retry" });
    expect(decideReprompt({ backstopPrompts: [], ...repair, actWhenAsked: { text: "A" } }, 1)).toEqual({
      type: "reprompt",
      kind: "output-repair",
      text: "O",
    });
    expect(decideReprompt({ backstopPrompts: [], ...repair }, 0)).toEqual({ type: "end", withheld: "output-repair" });
  });
  it("output repair: only for an invalid answer, with an output schema and repairs left", () => {
    const state = initialContractState();
    const withOutput = { ...spec, output: { retries: 1, onFailure: "error" as const } };
    expect(outputRepairCandidate(withOutput, state, { ok: false, issues: "x" })).toBe(true);
    expect(outputRepairCandidate(withOutput, state, { ok: true, value: 1 })).toBe(false);
    expect(outputRepairCandidate(withOutput, state, undefined)).toBe(false);
    expect(outputRepairCandidate(withOutput, { ...state, outputRepairs: 1 }, { ok: false, issues: "x" })).toBe(false);
    expect(outputRepairCandidate(spec, state, { ok: false, issues: "x" })).toBe(false);
  });
  it("then the refusal retry, then actWhenAsked", () => {
    expect(decideReprompt({ ...all, backstopPrompts: [] }, 1)).toEqual({
      type: "reprompt",
      kind: "refusal-retry",
      text: "R",
      source: "a",
    });
    expect(decideReprompt({ backstopPrompts: [], actWhenAsked: { text: "A" } }, 1)).toEqual({
      type: "reprompt",
      kind: "act-when-asked",
      text: "A",
    });
  });
  it("ends when nothing fires", () => {
    expect(decideReprompt({ backstopPrompts: [] }, 5)).toEqual({ type: "end" });
  });
  it("with no trip left, nothing is sent and the would-be re-prompt is reported as withheld", () => {
    expect(decideReprompt(all, 0)).toEqual({ type: "end", withheld: "backstop" });
    expect(decideReprompt({ backstopPrompts: [], actWhenAsked: { text: "A" } }, 0)).toEqual({
      type: "end",
      withheld: "act-when-asked",
    });
  });
});

describe("spendBudget", () => {
  it("spends only the budget of the option that sent", () => {
    const state = initialContractState();
    spendBudget(state, "refusal-retry");
    spendBudget(state, "act-when-asked");
    spendBudget(state, "backstop");
    spendBudget(state, "output-repair");
    expect([state.refusalRetries, state.actReprompts, state.outputRepairs]).toEqual([1, 1, 1]);
  });
});
