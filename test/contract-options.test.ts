import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentOptionsError, ai, type AgentOptions } from "../src/index.js";

const updatePlan = ai.tool({ name: "update_plan", input: z.object({}), execute: async () => ({ ok: true }) });
const base = { model: ai.openai("gpt-test"), tools: [updatePlan] };
const act = { intents: ["swap"], requiredTools: ["update_plan"] };
const backstop = { name: "b", detect: () => true, run: () => undefined };

describe("invalid contract options throw AgentOptionsError at ai.agent() time, naming the field", () => {
  it.each<[string, Partial<AgentOptions>]>([
    ["onToolRefusal", { onToolRefusal: "retry-twice" as never }],
    ["onToolRefusal.retries", { onToolRefusal: { retries: -1 } }],
    ["actWhenAsked.maxReprompts", { actWhenAsked: { ...act, maxReprompts: -1 } }],
    ["actWhenAsked.requiredTools", { actWhenAsked: { ...act, requiredTools: ["delete_plan"] } }],
    ["actWhenAsked.intents[1]", { actWhenAsked: { ...act, intents: ["swap", 42 as never] } }],
    ["actWhenAsked.require", { actWhenAsked: { ...act, require: "most" as never } }],
    ["backstops[0].name", { backstops: [{ ...backstop, name: "" }] }],
    ["backstops[1].name", { backstops: [backstop, { ...backstop }] }],
    ["backstops[0].phase", { backstops: [{ ...backstop, phase: "during" as never }] }],
  ])("%s", (field, options) => {
    let error: unknown;
    try {
      ai.agent({ ...base, ...options });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AgentOptionsError);
    expect((error as AgentOptionsError).field).toBe(field);
    expect((error as Error).message).toContain(`\`${field}\``);
  });

  it("the messages say what to fix", () => {
    expect(() => ai.agent({ ...base, actWhenAsked: { ...act, requiredTools: ["delete_plan"] } })).toThrow(
      /names "delete_plan", which is not one of the agent's tools \(update_plan\)/,
    );
    expect(() => ai.agent({ ...base, onToolRefusal: "retry-twice" as never })).toThrow(
      /must be "off", "retry-once-with-hint" or an object \(got "retry-twice"\)/,
    );
  });

  it("valid options, all off by default, are accepted", () => {
    expect(ai.agent(base).options.actWhenAsked).toBeUndefined();
    expect(() => ai.agent({ ...base, actWhenAsked: act, onToolRefusal: "off", backstops: [backstop] })).not.toThrow();
  });
});
