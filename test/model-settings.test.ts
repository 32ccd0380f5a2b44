/**
 * Issue 13, item 5: model settings on `ai.openai(id, settings)` and per run, each asserted in the
 * request body the scripted server receives; a forcing toolChoice applies to the first trip only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ai, type ModelSettings, type RunOptions } from "../src/index.js";
import { startScriptedModel, type ScriptedTurn } from "../src/testing/index.js";
import { swap, updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { optionsErrorField } from "./support/options-helpers.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

async function bodies(
  name: string,
  settings: ModelSettings,
  script: ScriptedTurn[],
  run: RunOptions = {},
  maxTrips?: number,
) {
  const model = await startScriptedModel(script);
  try {
    const agent = ai.agent({
      name,
      tools: [updatePlanTool()],
      maxTrips,
      model: ai.openai("gpt-test", { baseURL: model.baseURL, ...settings }),
    });
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("Swap squats for lunges", { client: harness.client, taskQueue, ...run }),
    );
    return { result, bodies: model.requests.map((r) => r.body) };
  } finally {
    await model.close();
  }
}

const SETTINGS = [
  "tool_choice",
  "parallel_tool_calls",
  "top_p",
  "seed",
  "stop",
  "presence_penalty",
  "frequency_penalty",
  "reasoning_effort",
  "top_k",
  "temperature",
  "max_completion_tokens",
];
const sent = (body: Record<string, unknown>) =>
  Object.fromEntries(SETTINGS.filter((key) => key in body).map((key) => [key, body[key]]));

describe("model settings", () => {
  it("each setting of ai.openai reaches the request body; a forced tool applies to the first trip only", async () => {
    const { bodies: sentBodies } = await bodies(
      "settings-all",
      {
        toolChoice: { tool: "update_plan" },
        parallelToolCalls: false,
        topP: 0.9,
        seed: 42,
        stop: ["END"],
        presencePenalty: 0.5,
        frequencyPenalty: -0.5,
        reasoningEffort: "low",
        extraBody: { top_k: 40 },
        temperature: 0.2,
        maxTokens: 300,
      },
      [swap("lunges"), "Done."],
    );
    const common = {
      parallel_tool_calls: false,
      top_p: 0.9,
      seed: 42,
      stop: ["END"],
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      reasoning_effort: "low",
      top_k: 40,
      temperature: 0.2,
      max_completion_tokens: 300,
    };
    expect(sent(sentBodies[0]!)).toEqual({
      ...common,
      tool_choice: { type: "function", function: { name: "update_plan" } },
    });
    expect(sent(sentBodies[1]!)).toEqual(common); // trip 2: the forced choice is reset, so the model can answer
  });

  it("a run's modelSettings override the model's, field by field (extraBody merged); a non-forcing choice applies on every trip", async () => {
    const { bodies: sentBodies } = await bodies(
      "settings-run",
      { topP: 0.5, seed: 1, extraBody: { top_k: 10, min_p: 0.1 } },
      [swap("lunges"), "Done."],
      {
        modelSettings: { seed: 7, toolChoice: "auto", extraBody: { top_k: 20 } },
      },
    );
    for (const body of sentBodies) expect(sent(body)).toEqual({ top_p: 0.5, seed: 7, tool_choice: "auto", top_k: 20 });
    expect(sentBodies[0]!.min_p).toBe(0.1);
  });

  it('resetToolChoice: false keeps a forcing choice ("required") on every trip', async () => {
    const { result, bodies: sentBodies } = await bodies(
      "settings-keep",
      { toolChoice: "required", resetToolChoice: false },
      [swap("a"), swap("b")],
      {},
      2,
    );
    expect(result.stopReason).toBe("max-trips");
    expect(sentBodies.map((b) => b.tool_choice)).toEqual(["required", "required"]);
  });

  it("an agent without tools sends no tool settings", async () => {
    const model = await startScriptedModel(["Hi."]);
    const agent = ai.agent({
      name: "settings-no-tools",
      model: ai.openai("gpt-test", { baseURL: model.baseURL, toolChoice: "none", parallelToolCalls: true, seed: 3 }),
    });
    await withWorker(harness, [agent], ({ taskQueue }) => agent.run("Hi", { client: harness.client, taskQueue }));
    expect(sent(model.requests[0]!.body)).toEqual({ seed: 3 });
    await model.close();
  });

  it("bad settings are AgentOptionsErrors naming the field", async () => {
    const field = optionsErrorField;
    const at = 'ai.openai("m") settings';
    expect(field(() => ai.openai("m", { topP: 2 }))).toBe(`${at}.topP`);
    expect(field(() => ai.openai("m", { seed: 1.5 }))).toBe(`${at}.seed`);
    expect(field(() => ai.openai("m", { stop: ["a", "b", "c", "d", "e"] }))).toBe(`${at}.stop`);
    expect(field(() => ai.openai("m", { presencePenalty: 3 }))).toBe(`${at}.presencePenalty`);
    expect(field(() => ai.openai("m", { reasoningEffort: "max" as never }))).toBe(`${at}.reasoningEffort`);
    expect(field(() => ai.openai("m", { toolChoice: "always" as never }))).toBe(`${at}.toolChoice`);
    expect(field(() => ai.openai("m", { extraBody: [] as never }))).toBe(`${at}.extraBody`);
    expect(
      field(() => ai.agent({ model: ai.openai("m", { toolChoice: { tool: "nope" } }), tools: [updatePlanTool()] })),
    ).toBe("model.toolChoice");
    const agent = ai.agent({ name: "settings-bad-run", model: ai.openai("m"), tools: [updatePlanTool()] });
    await expect(agent.start("hi", { modelSettings: { toolChoice: { tool: "nope" } } })).rejects.toMatchObject({
      name: "AgentOptionsError",
      field: "modelSettings.toolChoice",
    });
    await expect(agent.start("hi", { modelSettings: { frequencyPenalty: -9 } })).rejects.toMatchObject({
      name: "AgentOptionsError",
      field: "modelSettings.frequencyPenalty",
    });
  });
});
