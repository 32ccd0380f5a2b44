import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../src/index.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { connectHarness, withWorker, type Harness } from "./harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

function planTool(log: unknown[] = []) {
  return ai.tool({
    name: "update_plan",
    description: "Swap one exercise of the plan for another",
    input: z.object({ from: z.string(), to: z.string() }),
    execute: async (input) => {
      log.push(input);
      return { ok: true, plan: [input.to] };
    },
  });
}

describe("the trip loop", () => {
  let model: ScriptedModel;
  afterAll(() => model?.close());

  it("runs model call, tool call, model call and answers", async () => {
    model = await startScriptedModel([
      { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] },
      "Done: squats are now lunges.",
    ]);
    const calls: unknown[] = [];
    const agent = ai.agent({ name: "coach-basic", model: ai.openai("gpt-test", { baseURL: model.baseURL, apiKey: "k" }), tools: [planTool(calls)] });
    const result = await withWorker(harness, [agent], ({ taskQueue }) => agent.run("Swap squats for lunges", { client: harness.client, taskQueue }));
    expect(result.stopReason).toBe("answered");
    expect(result.reply).toBe("Done: squats are now lunges.");
    expect(result.trips).toBe(2);
    expect(calls).toEqual([{ from: "squats", to: "lunges" }]);
    expect(result.toolCalls).toMatchObject([{ name: "update_plan", status: "ok", trip: 1, input: { from: "squats", to: "lunges" }, output: { ok: true, plan: ["lunges"] } }]);
    expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(result.workflowId).toMatch(/^coach-basic-/);
    expect(result.trace.at(-1)).toMatchObject({ type: "run.stopped", stopReason: "answered" });
    // the second request carried the tool result back to the model
    expect(model.requests[1]!.body.messages.at(-1)).toMatchObject({ role: "tool", content: JSON.stringify({ ok: true, plan: ["lunges"] }) });
    expect(model.requests[0]!.body.tools).toEqual([
      expect.objectContaining({ type: "function", function: expect.objectContaining({ name: "update_plan", parameters: expect.objectContaining({ type: "object", required: ["from", "to"] }) }) }),
    ]);
  });
});
