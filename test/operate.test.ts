import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../src/index.js";
import { SEARCH_ATTRIBUTES } from "../src/core/search-attributes.js";
import { startScriptedModel, type ScriptedRequest } from "../src/testing/index.js";
import { swap, updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { cancelWhileToolWaits } from "./support/ops-helpers.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

/** A model whose second call never answers; resolves `arrived` with that request. */
async function stallingModel() {
  let arrived!: (request: ScriptedRequest) => void;
  const second = new Promise<ScriptedRequest>((resolve) => (arrived = resolve));
  const model = await startScriptedModel(async (request) => {
    if (request.index === 0) return swap();
    arrived(request);
    return new Promise(() => {});
  });
  return { model, second };
}

describe("cancellation and time limits", () => {
  it("handle.cancel() cancels the in-flight model call and ends the run with stopReason cancelled and a trace that says where", async () => {
    const { model, second } = await stallingModel();
    const agent = ai.agent({
      name: "cancel-me",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [updatePlanTool()],
      timeouts: { heartbeat: "1 second" },
    });
    const result = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Swap squats", { client: harness.client, taskQueue });
      const request = await second;
      await handle.cancel();
      const result = await handle.result();
      await request.closed; // the model activity was cancelled: its HTTP request was aborted
      return result;
    });
    expect(result.stopReason).toBe("cancelled");
    expect(result.trips).toBe(1);
    expect(result.toolCalls).toMatchObject([{ name: "update_plan", status: "ok" }]);
    expect(result.trace.at(-1)).toEqual({
      trip: 1,
      type: "run.stopped",
      stopReason: "cancelled",
      detail: "cancelled during trip 2: model call",
    });
    await model.close();
  });

  it("handle.cancel() aborts an in-flight tool call through its signal", async () => {
    const model = await startScriptedModel([{ toolCalls: [{ name: "wait" }] }]);
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    let aborted!: (reason: unknown) => void;
    const toolAborted = new Promise<unknown>((resolve) => (aborted = resolve));
    const wait = ai.tool({
      name: "wait",
      input: z.object({}),
      execute: (_input, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => (aborted(ctx.signal.reason), reject(new Error("aborted"))));
          started();
        }),
    });
    const agent = ai.agent({
      name: "cancel-tool",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [wait],
      timeouts: { heartbeat: "1 second" },
    });
    const result = await cancelWhileToolWaits(harness, agent, toolStarted, toolAborted);
    expect(result).toMatchObject({ stopReason: "cancelled", trips: 1 });
    expect(result.trace.at(-1)).toMatchObject({ detail: "cancelled during trip 1: tool calls wait" });
    await model.close();
  });

  it('the timeout run option ends the run the same way with "timed-out"', async () => {
    const { model } = await stallingModel();
    const agent = ai.agent({
      name: "slowpoke",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [updatePlanTool()],
      timeouts: { heartbeat: "1 second" },
    });
    const result = await withWorker(harness, [agent], async ({ taskQueue }) =>
      agent.run("Swap squats", { client: harness.client, taskQueue, timeout: "1 second" }),
    );
    expect(result.stopReason).toBe("timed-out");
    expect(result.trace.at(-1)).toEqual({
      trip: 1,
      type: "run.stopped",
      stopReason: "timed-out",
      detail: "timed out after 1000 ms during trip 2: model call",
    });
    await model.close();
  });
});

describe("watching a run in the Temporal UI", () => {
  it("workflow ids say what they are; current details show the trip, the last tool call and re-prompts; search attributes record the outcome", async () => {
    const { model, second } = await stallingModel();
    const agent = ai.agent({
      name: "watched",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [updatePlanTool()],
      timeouts: { heartbeat: "1 second" },
    });
    const id = `run-${Date.now()}`;
    const { details, described } = await withWorker(
      harness,
      [agent],
      async ({ taskQueue }) => {
        const handle = await agent.start("Swap squats for lunges\nplease", { client: harness.client, taskQueue, id });
        expect(handle.workflowId).toBe(`watched-${id}`);
        await second;
        const metadata = await handle.workflow.query<{ currentDetails?: string }>("__temporal_workflow_metadata");
        await handle.cancel();
        await handle.result();
        return { details: metadata.currentDetails, described: await handle.workflow.describe() };
      },
      { searchAttributes: true },
    );
    expect(details).toContain("**watched** · trip 1 of 10 · now: trip 2: model call");
    expect(details).toContain("last tool call: `update_plan` → ok");
    expect(details).toContain("re-prompts sent: 0");
    expect(await described.staticSummary()).toBe("watched: Swap squats for lunges");
    expect(described.typedSearchAttributes.get(SEARCH_ATTRIBUTES.agent)).toBe("watched");
    expect(described.typedSearchAttributes.get(SEARCH_ATTRIBUTES.stopReason)).toBe("cancelled");
    expect(described.typedSearchAttributes.get(SEARCH_ATTRIBUTES.trips)).toBe(1);
    expect(described.typedSearchAttributes.get(SEARCH_ATTRIBUTES.refusals)).toBe(0);
    await model.close();
  });
});
