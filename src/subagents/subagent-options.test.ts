import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, AgentOptionsError, DuplicateAgentError } from "../index.js";
import { remainingBudget, tighterBudget } from "../core/usage.js";
import { withSubAgents } from "./collect-agents.js";

const model = ai.openai("gpt-test");

describe("registering sub-agents on a worker", () => {
  it("collects sub-agents and handoff targets transitively, each once, whether listed or not", () => {
    const leaf = ai.agent({ name: "leaf", model });
    const mid = ai.agent({ name: "mid", model, tools: [leaf.asTool()] });
    const closer = ai.agent({ name: "closer", model, tools: [leaf.asTool({ name: "ask_leaf" })] });
    const root = ai.agent({ name: "root", model, tools: [mid.asTool()], handoffs: [closer] });
    expect(withSubAgents([root]).map((a) => a.name)).toEqual(["root", "mid", "leaf", "closer"]);
    expect(withSubAgents([root, leaf, mid]).map((a) => a.name)).toEqual(["root", "mid", "leaf", "closer"]);
  });

  it("two different agents with one name is a DuplicateAgentError naming it", () => {
    const a = ai.agent({ name: "billing", model });
    const b = ai.agent({ name: "billing", model });
    const root = ai.agent({ name: "root", model, tools: [a.asTool()] });
    expect(() => withSubAgents([root, b])).toThrow(DuplicateAgentError);
    expect(() => withSubAgents([a, a])).toThrow(/named "billing"/);
  });
});

describe("agent.asTool() and handoffs", () => {
  it("asTool: default name and { message } input; a custom input with toMessage", () => {
    const billing = ai.agent({ name: "billing.v2", model });
    expect(billing.asTool()).toMatchObject({
      name: "billing_v2",
      jsonSchema: { properties: { message: { type: "string" } }, required: ["message"] },
    });
    const custom = billing.asTool({
      name: "refund",
      input: z.object({ amount: z.number() }),
      toMessage: ({ amount }) => `Refund $${amount}`,
    });
    expect(custom.subAgent!.toMessage({ amount: 3 })).toBe("Refund $3");
  });

  it("an agent's description is its asTool()'s default description; a non-string or one over 1,024 characters is an AgentOptionsError", () => {
    const described = ai.agent({ name: "refunds", description: "Refunds an order paid by card.", model });
    expect(described.asTool().description).toBe("Refunds an order paid by card.");
    expect(described.asTool({ description: "Own words." }).description).toBe("Own words.");
    expect(ai.agent({ name: "plain", model }).asTool().description).toBe(
      "Ask the plain agent. Send it the whole request as `message`.",
    );
    expect(() => ai.agent({ name: "long", description: "x".repeat(1025), model })).toThrow(
      /`description`: must be a string of at most 1,024 characters \(got 1025/,
    );
    expect(() => ai.agent({ name: "num", description: 3 as never, model })).toThrow(AgentOptionsError);
  });

  it("handoffs add transfer_to_<name> tools; a clash with another tool or a bad entry is an AgentOptionsError", () => {
    const billing = ai.agent({ name: "billing", model });
    const triage = ai.agent({ name: "triage", model, handoffs: [billing] });
    expect(triage.tools.map((t) => t.name)).toEqual(["transfer_to_billing"]);
    const clash = ai.tool({ name: "transfer_to_billing", input: z.object({}), execute: () => null });
    expect(() => ai.agent({ name: "t", model, tools: [clash], handoffs: [billing] })).toThrow(AgentOptionsError);
    expect(() => ai.agent({ name: "t", model, handoffs: [{ agent: billing, inputFilter: "all" as never }] })).toThrow(
      /handoffs\[0\]\.inputFilter/,
    );
  });
});

describe("budgets across the tree", () => {
  it("a child gets the tighter of its own budget and what its caller has left", () => {
    expect(
      remainingBudget(
        { maxTokens: 100, maxCostUsd: 0.5 },
        { inputTokens: 50, outputTokens: 20, totalTokens: 70, modelCalls: 2, costUsd: 0.6 },
      ),
    ).toEqual({ maxTokens: 30, maxCostUsd: 0 });
    expect(tighterBudget({ maxTokens: 1000 }, { maxTokens: 30, maxCostUsd: 0 })).toEqual({
      maxTokens: 30,
      maxCostUsd: 0,
    });
    expect(tighterBudget(undefined, { maxTokens: 30 })).toEqual({ maxTokens: 30 });
  });
});
