import { historyToJSON } from "@temporalio/common/lib/proto-utils.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../src/index.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { startHttpMcpServer } from "./fixtures/mcp/http-server.js";
import { stdioToolset } from "./support/mcp-helpers.js";

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
    const agent = ai.agent({
      name: "coach-basic",
      model: ai.openai("gpt-test", { baseURL: model.baseURL, apiKey: "k" }),
      tools: [planTool(calls)],
    });
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("Swap squats for lunges", { client: harness.client, taskQueue }),
    );
    expect(result.stopReason).toBe("answered");
    expect(result.reply).toBe("Done: squats are now lunges.");
    expect(result.trips).toBe(2);
    expect(calls).toEqual([{ from: "squats", to: "lunges" }]);
    expect(result.toolCalls).toMatchObject([
      {
        name: "update_plan",
        status: "ok",
        trip: 1,
        input: { from: "squats", to: "lunges" },
        output: { ok: true, plan: ["lunges"] },
      },
    ]);
    expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(result.workflowId).toMatch(/^coach-basic-/);
    expect(result.trace.at(-1)).toMatchObject({ type: "run.stopped", stopReason: "answered" });
    // the second request carried the tool result back to the model
    expect(model.requests[1]!.body.messages.at(-1)).toMatchObject({
      role: "tool",
      content: JSON.stringify({ ok: true, plan: ["lunges"] }),
    });
    expect(model.requests[0]!.body.tools).toEqual([
      expect.objectContaining({
        type: "function",
        function: expect.objectContaining({
          name: "update_plan",
          parameters: expect.objectContaining({ type: "object", required: ["from", "to"] }),
        }),
      }),
    ]);
  });
});

describe("handles", () => {
  it("agent.start returns a handle whose trace() query reads a live run, and ai.getRun re-attaches by workflow id", async () => {
    let releaseSecond!: () => void;
    const secondHeld = new Promise<void>((resolve) => (releaseSecond = resolve));
    let secondArrived!: () => void;
    const secondRequested = new Promise<void>((resolve) => (secondArrived = resolve));
    const model = await startScriptedModel(async ({ index }) => {
      if (index === 0) return { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] };
      secondArrived();
      await secondHeld;
      return "Swapped.";
    });
    const agent = ai.agent({
      name: "coach-live",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [planTool()],
    });
    const result = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Swap squats for lunges", {
        client: harness.client,
        taskQueue,
        workflowId: `coach-live-${Date.now()}`,
      });
      await secondRequested;
      const live = await handle.trace();
      expect(live.map((e) => e.type)).toEqual(["model.answered", "tool.finished"]);
      const reattached = await ai.getRun(handle.workflowId, { client: harness.client });
      releaseSecond();
      return reattached.result();
    });
    expect(result.reply).toBe("Swapped.");
    expect(result.trace.map((e) => e.type)).toEqual([
      "model.answered",
      "tool.finished",
      "model.answered",
      "run.stopped",
    ]);
    // every activity carries a UI summary that names what it does
    const history = await (await ai.getRun(result.workflowId, { client: harness.client })).workflow.fetchHistory();
    const summaries = history
      .events!.filter((e) => e.activityTaskScheduledEventAttributes)
      .map((e) => JSON.parse(Buffer.from(e.userMetadata!.summary!.data!).toString("utf8")));
    expect(summaries).toEqual(["model gpt-test · trip 1", "tool update_plan", "model gpt-test · trip 2"]);
    await model.close();
  });
});

describe("secrets", () => {
  it("the API key reaches the model server but is never written to workflow history", async () => {
    const secret = "sk-test-SECRET-0123456789";
    const model = await startScriptedModel(["Hi."]);
    const agent = ai.agent({
      name: "coach-secret",
      model: ai.openai("gpt-test", { baseURL: model.baseURL, apiKey: secret }),
    });
    const history = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Hello", { client: harness.client, taskQueue });
      await handle.result();
      return handle.workflow.fetchHistory();
    });
    expect(model.requests[0]!.authorization).toBe(`Bearer ${secret}`);
    // Every payload's data, base64 in the JSON history, decoded to text.
    const decoded = historyToJSON(history).replace(/"data":\s*"([A-Za-z0-9+/=]+)"/g, (_m: string, data: string) =>
      Buffer.from(data, "base64").toString("utf8"),
    );
    expect(decoded).toContain("Hello"); // payloads were decoded, so the scan is meaningful
    expect(decoded).not.toContain(secret);
    await model.close();
  });

  it("MCP headers and env reach the servers but are never written to workflow history", async () => {
    const header = "Bearer mcp-SECRET-HEADER-42";
    const token = "mcp-SECRET-ENV-43";
    const http = await startHttpMcpServer({ authorized: () => http.authorizations.at(-1) === header });
    const model = await startScriptedModel([
      { toolCalls: [{ name: "check_auth" }, { name: "gym__check_auth" }] },
      "Both authorized.",
    ]);
    const library = stdioToolset({ env: { MCP_TOKEN: token, MCP_TOKEN_EXPECTED: token } });
    const agent = ai.agent({
      name: "coach-mcp-secret",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [library, ai.mcp({ name: "gym", url: http.url, prefix: true, headers: { authorization: header } })],
    });
    try {
      const { result, history } = await withWorker(harness, [agent], async ({ taskQueue }) => {
        const handle = await agent.start("Check", { client: harness.client, taskQueue });
        return { result: await handle.result(), history: await handle.workflow.fetchHistory() };
      });
      expect(result.toolCalls.map((c) => (c.output as { content: Array<{ text: string }> }).content[0]!.text)).toEqual([
        "authorized",
        "authorized",
      ]);
      const decoded = historyToJSON(history).replace(/"data":\s*"([A-Za-z0-9+/=]+)"/g, (_m: string, data: string) =>
        Buffer.from(data, "base64").toString("utf8"),
      );
      expect(decoded).toContain("authorized"); // payloads were decoded, so the scan is meaningful
      expect(decoded).not.toContain("SECRET");
    } finally {
      await library.close();
      await http.close();
      await model.close();
    }
  });
});
