import { describe, expect, it } from "vitest";
import { parseToolArguments, toolCallRecord, toolCallResult } from "./tool-result.js";

const call = { id: "call_1", name: "update_plan", arguments: '{"to":"lunges"}' };

describe("tool call results and records", () => {
  it("a result leaves out the input only when it is the call's arguments parsed", () => {
    const parsed = parseToolArguments(call);
    expect(toolCallResult({ input: parsed, output: { ok: true }, status: "ok" }, parsed)).toEqual({
      output: { ok: true },
      status: "ok",
    });
    expect(toolCallResult({ input: call.arguments, status: "refused", reason: "r" }, parsed)).toEqual({
      input: call.arguments,
      status: "refused",
      reason: "r",
    });
    const bad = parseToolArguments({ ...call, arguments: "{" });
    expect(bad).toBeInstanceOf(SyntaxError);
    expect(toolCallResult({ input: bad, status: "refused", reason: "r" }, bad)).toHaveProperty("input");
  });

  it("a record is the same from a result and from a whole record of an older history", () => {
    const whole = {
      id: "call_1",
      name: "update_plan",
      trip: 2,
      input: { to: "lunges" },
      output: { ok: true },
      status: "ok" as const,
    };
    expect(toolCallRecord(call, 2, { output: { ok: true }, status: "ok" })).toEqual(whole);
    expect(toolCallRecord(call, 2, whole)).toEqual(whole);
    expect(Object.keys(toolCallRecord(call, 2, { output: { ok: true }, status: "ok" }))).toEqual(Object.keys(whole));
    expect(toolCallRecord({ ...call, arguments: " " }, 1, { status: "ok", output: null }).input).toEqual({});
  });
});
