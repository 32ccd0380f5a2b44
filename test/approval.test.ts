import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type RunHandle } from "../src/index.js";
import { startScriptedModel, type ScriptedTurn } from "../src/testing/index.js";
import { reprompts, swap } from "./support/contract-helpers.js";
import { approvalRequested, type ApprovalEvent } from "./support/approval-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

function approvalAgent(
  baseURL: string,
  executed: unknown[],
  options: { approvalTimeout?: string; needsApproval?: boolean | ((input: { to: string }) => boolean) } = {},
) {
  return ai.agent({
    name: "approval-coach",
    model: ai.openai("gpt-test", { baseURL }),
    onToolRefusal: "retry-once-with-hint",
    tools: [
      ai.tool({
        name: "update_plan",
        input: z.object({ from: z.string(), to: z.string() }),
        needsApproval: options.needsApproval ?? true,
        ...(options.approvalTimeout ? { approvalTimeout: options.approvalTimeout } : {}),
        execute: async (input) => (executed.push(input), { ok: true }),
      }),
    ],
  });
}

async function runWithApproval(
  script: ScriptedTurn[],
  decide: (handle: RunHandle, event: ApprovalEvent) => Promise<unknown>,
  options = {},
) {
  const model = await startScriptedModel(script);
  const executed: unknown[] = [];
  const agent = approvalAgent(model.baseURL, executed, options);
  const out = await withWorker(harness, [agent], async ({ taskQueue }) => {
    const handle = await agent.start("Swap squats for lunges", { client: harness.client, taskQueue });
    const event = await approvalRequested(handle);
    const details = (await handle.workflow.query<{ currentDetails?: string }>("__temporal_workflow_metadata"))
      .currentDetails;
    await decide(handle, event);
    return { result: await handle.result(), event, details };
  });
  await model.close();
  return { ...out, executed, requests: model.requests };
}

describe("human approval", () => {
  it("a tool with needsApproval pauses the run before executing; the run shows as waiting; approve resumes it", async () => {
    const { result, event, details, executed } = await runWithApproval([swap(), "Done."], (handle, e) =>
      handle.approve(e.callId),
    );
    expect(event).toMatchObject({ tool: "update_plan", input: { from: "squats", to: "lunges" }, trip: 1 });
    expect(details).toContain(`⏸ waiting for approval of update_plan (${event.callId})`);
    expect(executed).toEqual([{ from: "squats", to: "lunges" }]);
    expect(result.toolCalls).toMatchObject([{ status: "ok" }]);
    expect(result.trace.filter((e) => e.type === "approval").map((e) => (e as ApprovalEvent).outcome)).toEqual([
      "requested",
      "approved",
    ]);
  });

  it("reject goes back to the model as a refusal, so onToolRefusal applies; the tool never runs", async () => {
    const { result, executed, requests } = await runWithApproval(
      [swap(), "OK, I won't.", "Understood, keeping squats."],
      (handle, e) => handle.reject(e.callId, "not before the race"),
    );
    expect(executed).toEqual([]);
    expect(result.toolCalls).toMatchObject([
      { status: "refused", reason: "rejected by a person: not before the race" },
    ]);
    expect(JSON.parse(String(requests[1]!.body.messages.at(-1)!.content))).toEqual({
      refused: true,
      reason: "rejected by a person: not before the race",
    });
    expect(reprompts(result)).toEqual([
      expect.objectContaining({ kind: "refusal-retry", text: expect.stringContaining("not before the race") }),
    ]);
  });

  it("a call nobody decides on within approvalTimeout is refused", async () => {
    const { result, executed } = await runWithApproval(
      [swap(), "It timed out.", "Still waiting on you."],
      async () => undefined,
      { approvalTimeout: "1 second" },
    );
    expect(executed).toEqual([]);
    expect(result.toolCalls).toMatchObject([{ status: "refused", reason: "no approval within 1000 ms" }]);
    expect(result.trace).toContainEqual(expect.objectContaining({ type: "approval", outcome: "timed-out" }));
  });

  it("needsApproval may be a function of the input; approve or reject of a call that is not waiting is refused with the calls that are", async () => {
    const model = await startScriptedModel([swap("lunges"), swap("burpees"), "Done."]);
    const executed: unknown[] = [];
    const agent = approvalAgent(model.baseURL, executed, { needsApproval: (input) => input.to === "burpees" });
    await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Swap squats", { client: harness.client, taskQueue });
      const event = await approvalRequested(handle);
      expect(event.input).toEqual({ from: "squats", to: "burpees" });
      expect(executed).toEqual([{ from: "squats", to: "lunges" }]); // the first call needed no approval
      await expect(handle.approve("call_nope")).rejects.toThrow(
        `No tool call "call_nope" is waiting for approval (waiting: ${event.callId})`,
      );
      await handle.approve(event.callId);
      expect((await handle.result()).toolCalls.map((c) => c.status)).toEqual(["ok", "ok"]);
    });
    await model.close();
  });
});
