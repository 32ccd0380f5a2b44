/**
 * Issue 13, item 2: cost and budgets. `pricing` on the model gives `usage.costUsd`; a `budget` on
 * the agent (or per run) stops the run before a trip that would start with the budget used up,
 * with stopReason "budget" and a trace entry; re-prompts spend budget like any trip.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ai, type AgentOptions } from "../src/index.js";
import { startScriptedModel, type ScriptedTurn } from "../src/testing/index.js";
import { swap, updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { optionsErrorField } from "./support/options-helpers.js";
import { defined } from "../src/core/defined.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

/** Every answer reports 80 input and 20 output tokens. */
const HUNDRED = { usage: { prompt_tokens: 80, completion_tokens: 20 } };

async function runWith(
  options: Partial<AgentOptions> & { name: string },
  script: ScriptedTurn[],
  runOptions: Parameters<ReturnType<typeof ai.agent>["run"]>[1] = {},
  pricing?: { inputPerMillion: number; outputPerMillion: number; cachedInputPerMillion?: number },
) {
  const model = await startScriptedModel(script, HUNDRED);
  try {
    const agent = ai.agent({
      tools: [updatePlanTool()],
      ...options,
      model: ai.openai("gpt-test", { baseURL: model.baseURL, ...defined({ pricing }) }),
    });
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("Swap squats for lunges", { client: harness.client, taskQueue, ...runOptions }),
    );
    return { result, requests: model.requests };
  } finally {
    await model.close();
  }
}

const toolTrips = (n: number): ScriptedTurn[] => Array.from({ length: n }, () => swap("lunges"));

describe("pricing", () => {
  it("gives each call's usage.costUsd and the run's total, cached input at its own price", async () => {
    const model = await startScriptedModel([
      {
        ...(swap("lunges") as object),
        usage: { prompt_tokens: 1000, completion_tokens: 100, prompt_tokens_details: { cached_tokens: 400 } },
      },
      { text: "Done.", usage: { prompt_tokens: 2000, completion_tokens: 50 } },
    ]);
    const agent = ai.agent({
      name: "priced",
      tools: [updatePlanTool()],
      model: ai.openai("gpt-test", {
        baseURL: model.baseURL,
        pricing: { inputPerMillion: 2.5, outputPerMillion: 10, cachedInputPerMillion: 1.25 },
      }),
    });
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("Swap", { client: harness.client, taskQueue }),
    );
    // trip 1: 600 × 2.5 + 400 × 1.25 + 100 × 10 = 3000 per million; trip 2: 2000 × 2.5 + 50 × 10 = 5500 per million
    expect(
      result.trace
        .filter((e) => e.type === "model.answered")
        .map((e) => e.type === "model.answered" && e.usage?.costUsd),
    ).toEqual([0.003, 0.0055]);
    expect(result.usage?.costUsd).toBe(0.0085);
    await model.close();
  });
});

describe("budget", () => {
  it("a trip does not start once maxTokens is used up: stopReason budget, and a trace entry saying what was used", async () => {
    const { result, requests } = await runWith({ name: "budget-tokens", budget: { maxTokens: 250 } }, toolTrips(5));
    expect(requests).toHaveLength(3); // 100, 200, then 300 ≥ 250: no fourth trip
    expect(result).toMatchObject({ stopReason: "budget", trips: 3, usage: { totalTokens: 300 } });
    expect(result.trace.at(-2)).toEqual({
      trip: 3,
      type: "budget.used-up",
      used: "300 of 250 tokens",
      budget: { maxTokens: 250 },
      usage: expect.objectContaining({ totalTokens: 300 }),
    });
    expect(result.trace.at(-1)).toMatchObject({
      type: "run.stopped",
      stopReason: "budget",
      detail: "budget used up: 300 of 250 tokens",
    });
  });

  it("a run's budget overrides the agent's", async () => {
    const { result } = await runWith({ name: "budget-run", budget: { maxTokens: 1000 } }, toolTrips(5), {
      budget: { maxTokens: 150 },
    });
    expect(result).toMatchObject({ stopReason: "budget", trips: 2 });
  });

  it("maxCostUsd bounds the cost under the model's pricing", async () => {
    // 80 × $10 + 20 × $20 per million = $0.0012 per trip; $0.003 is used up after the third trip
    const { result } = await runWith(
      { name: "budget-cost", budget: { maxCostUsd: 0.003 } },
      toolTrips(5),
      {},
      { inputPerMillion: 10, outputPerMillion: 20 },
    );
    expect(result).toMatchObject({ stopReason: "budget", trips: 3, usage: { costUsd: 0.0036 } });
    expect(result.trace.at(-1)).toMatchObject({ detail: "budget used up: $0.0036 of $0.003" });
  });

  it("re-prompts spend budget like any trip: the re-prompted trip's tokens count, and no trip starts after", async () => {
    const { result, requests } = await runWith(
      {
        name: "budget-reprompt",
        budget: { maxTokens: 200 },
        actWhenAsked: { intents: ["swap"], requiredTools: ["update_plan"] },
      },
      ["Want me to swap that?", swap("lunges"), "Done."],
    );
    expect(requests).toHaveLength(2);
    expect(result.trace.map((e) => e.type)).toEqual([
      "model.answered",
      "reprompt",
      "model.answered",
      "tool.finished",
      "budget.used-up",
      "run.stopped",
    ]);
    expect(result).toMatchObject({ stopReason: "budget", usage: { totalTokens: 200 } });
  });

  it("with the budget used up, a re-prompt is withheld like one with no trips left", async () => {
    const { result, requests } = await runWith(
      {
        name: "budget-withheld",
        budget: { maxTokens: 100 },
        actWhenAsked: { intents: ["swap"], requiredTools: ["update_plan"] },
      },
      ["Want me to swap that?"],
    );
    expect(requests).toHaveLength(1);
    expect(result.stopReason).toBe("answered");
    expect(result.trace).toContainEqual({
      trip: 1,
      type: "reprompt.withheld",
      kind: "act-when-asked",
      detail: "budget used up: 100 of 100 tokens",
    });
  });

  it("bad budgets and prices are AgentOptionsErrors naming the field, on the agent, on ai.openai and per run", async () => {
    const model = ai.openai("gpt-test");
    const field = optionsErrorField;
    expect(field(() => ai.agent({ model, budget: { maxTokens: 0 } }))).toBe("budget.maxTokens");
    expect(field(() => ai.agent({ model, budget: { maxTokens: 1.5 } }))).toBe("budget.maxTokens");
    expect(field(() => ai.agent({ model, budget: { maxCostUsd: -1 } as never }))).toBe("budget.maxCostUsd");
    expect(field(() => ai.agent({ model, budget: { maxCostUsd: 1 } }))).toBe("budget.maxCostUsd");
    expect(field(() => ai.agent({ model, budget: { maxTokenz: 5 } as never }))).toBe("budget.maxTokenz");
    expect(field(() => ai.openai("m", { pricing: { inputPerMillion: 1 } as never }))).toBe(
      'ai.openai("m") settings.pricing',
    );
    expect(field(() => ai.openai("m", { pricing: { inputPerMillion: 1, outputPerMillion: "2" } as never }))).toBe(
      'ai.openai("m") settings.pricing.outputPerMillion',
    );
    const agent = ai.agent({ name: "budget-bad-run", model });
    await expect(agent.start("hi", { budget: { maxCostUsd: 1 } })).rejects.toMatchObject({
      name: "AgentOptionsError",
      field: "budget.maxCostUsd",
    });
    await expect(agent.start("hi", { budget: { maxTokens: -3 } })).rejects.toMatchObject({
      name: "AgentOptionsError",
      field: "budget.maxTokens",
    });
  });
});
