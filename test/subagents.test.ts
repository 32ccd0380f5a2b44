/** Several agents in one run, end to end on the dev server: sub-agents as child workflows, handoffs, approvals, streams and usage across them. */
import { historyToJSON } from "@temporalio/common/lib/proto-utils.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type RunHandle, type StreamedRunEvent, type TraceEvent } from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { agentOf, ask, byAgent, testAgent, usageByAgent } from "./support/subagent-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const lookup = ai.tool({
  name: "lookup_invoice",
  input: z.object({ id: z.string() }),
  execute: async ({ id }) => ({ id, amount: 42 }),
});

type Finished = Extract<TraceEvent, { type: "subagent.finished" }>;
const finishedOf = (trace: TraceEvent[]) => trace.filter((e): e is Finished => e.type === "subagent.finished");

async function collect(handle: RunHandle): Promise<StreamedRunEvent[]> {
  const events: StreamedRunEvent[] = [];
  for await (const event of handle.stream()) events.push(event);
  return events;
}

describe("a triage agent with two sub-agents and a handoff", () => {
  it("calls both sub-agents in one answer as parallel child workflows, then hands off; trace, stream, usage and the children's own runs show it", async () => {
    let bothStarted!: () => void;
    const both = new Promise<void>((resolve) => (bothStarted = resolve));
    let childRequests = 0;
    // Each sub-agent's first answer waits until both have asked: the two child runs are in flight at once.
    const held = async (turn: { toolCalls: Array<{ name: string; arguments: unknown }> }) => {
      if (++childRequests === 2) bothStarted();
      await both;
      return turn;
    };
    const model = await startScriptedModel(
      byAgent({
        triage: [
          { toolCalls: [ask("billing", "What does invoice 7 say?"), ask("support", "Is the customer's plan active?")] },
          { toolCalls: [{ name: "transfer_to_closer", arguments: {} }] },
        ],
        billing: [
          () => held({ toolCalls: [{ name: "lookup_invoice", arguments: { id: "7" } }] }),
          "Invoice 7 is for $42.",
        ],
        support: [() => held({ toolCalls: [] }).then(() => "The plan is active.")],
        closer: ["Your invoice is $42 and your plan is active. Anything else?"],
      }),
      { usage: usageByAgent({ triage: 100, billing: 10, support: 20, closer: 1000 }) },
    );
    const billing = testAgent("billing", model.baseURL, { tools: [lookup] });
    const support = testAgent("support", model.baseURL);
    const closer = testAgent("closer", model.baseURL);
    const triage = testAgent("triage", model.baseURL, {
      tools: [billing.asTool(), support.asTool({ description: "Ask support about plans" })],
      handoffs: [closer],
    });

    // The worker is given only triage: its sub-agents and handoff target are registered with it.
    const { result, events, nested, children } = await withWorker(harness, [triage], async ({ taskQueue }) => {
      const handle = await triage.start("Why was I charged?", { client: harness.client, taskQueue });
      const eventsDone = collect(handle);
      const result = await handle.result();
      const children = await Promise.all(
        result.toolCalls
          .filter((c) => c.childWorkflowId)
          .map((c) => harness.client.workflow.getHandle(c.childWorkflowId!).describe()),
      );
      return { result, events: await eventsDone, nested: await handle.trace({ nested: true }), children };
    });
    await model.close();

    // The run: two sub-agent calls, the handoff, and closer's answer.
    expect(result).toMatchObject({
      stopReason: "answered",
      agent: "closer",
      reply: "Your invoice is $42 and your plan is active. Anything else?",
      trips: 3,
    });
    expect(result.toolCalls).toMatchObject([
      {
        name: "billing",
        status: "ok",
        output: "Invoice 7 is for $42.",
        subAgent: "billing",
        childWorkflowId: `${result.workflowId}/trip-1/call_0_0`,
      },
      {
        name: "support",
        status: "ok",
        output: "The plan is active.",
        subAgent: "support",
        childWorkflowId: `${result.workflowId}/trip-1/call_0_1`,
      },
      { name: "transfer_to_closer", status: "ok", output: { transferredTo: "closer" } },
    ]);
    expect(result.trace).toContainEqual({
      trip: 2,
      type: "handoff",
      from: "triage",
      to: "closer",
      callId: expect.any(String),
    });
    // Parallel: both children started before either finished.
    const kinds = result.trace.filter((e) => e.type.startsWith("subagent.")).map((e) => e.type);
    expect(kinds).toEqual(["subagent.started", "subagent.started", "subagent.finished", "subagent.finished"]);
    // The children's trips and tool calls nest under the calls that started them, in the result and in trace({ nested: true }).
    const billingRun = finishedOf(result.trace).find((e) => e.agent === "billing")!;
    expect(billingRun).toMatchObject({ stopReason: "answered", usage: { totalTokens: 20, modelCalls: 2 } });
    expect(billingRun.trace!.filter((e) => e.type === "tool.finished")).toMatchObject([
      { tool: "lookup_invoice", status: "ok" },
    ]);
    expect(finishedOf(nested).map((e) => e.trace?.length)).toEqual(
      finishedOf(result.trace).map((e) => e.trace?.length),
    );
    // Each child is its own workflow, a child of the run (Relationships in the UI), with its own result.
    for (const child of children) {
      expect(child.parentExecution).toMatchObject({ workflowId: result.workflowId, runId: result.runId });
      expect(child.type).toBe("agentRun");
      expect(child.status.name).toBe("COMPLETED");
    }
    // The handed-off agent saw the conversation so far, with its own instructions and no transfer tool of triage's.
    const closerRequest = model.requests.find((r) => agentOf(r) === "closer")!;
    expect(closerRequest.body.messages.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "tool",
      "assistant",
      "tool",
    ]);
    expect(closerRequest.body.tools).toBeUndefined();
    // Usage: the run's total includes the children's; by agent it splits.
    expect(result.usage).toMatchObject({ totalTokens: 100 * 2 + 10 * 2 + 20 + 1000, modelCalls: 6 });
    expect(
      Object.fromEntries(Object.entries(result.usageByAgent!).map(([agent, u]) => [agent, u.totalTokens])),
    ).toEqual({ triage: 200, billing: 20, support: 20, closer: 1000 });
    // The stream carries the children's events, tagged with their agent path; the run's own result comes last.
    expect(events.at(-1)).toMatchObject({ type: "run.finished", agents: ["closer"] });
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "tool.finished",
        tool: "lookup_invoice",
        agents: ["triage", "billing"],
        workflowId: result.toolCalls[0]!.childWorkflowId,
      }),
    );
    expect(events).toContainEqual(expect.objectContaining({ type: "model.answered", agents: ["triage", "support"] }));
    expect(events).toContainEqual(expect.objectContaining({ type: "handoff", agents: ["closer"] }));
  });

  it("three levels: a sub-agent's sub-agent nests under it, in ids, traces and usage", async () => {
    const model = await startScriptedModel(
      byAgent({
        lead: [{ toolCalls: [ask("manager", "Plan the week")] }, "The week is planned."],
        manager: [{ toolCalls: [ask("worker", "List Monday's tasks")] }, "Monday: two tasks."],
        worker: ["Tasks: A and B."],
      }),
      { usage: usageByAgent({ lead: 1, manager: 10, worker: 100 }) },
    );
    const worker = testAgent("worker", model.baseURL);
    const manager = testAgent("manager", model.baseURL, { tools: [worker.asTool()] });
    const lead = testAgent("lead", model.baseURL, { tools: [manager.asTool()] });
    const result = await withWorker(harness, [lead], ({ taskQueue }) =>
      lead.run("Plan my week", { client: harness.client, taskQueue }),
    );
    await model.close();
    const managerRun = finishedOf(result.trace)[0]!;
    const workerRun = finishedOf(managerRun.trace!)[0]!;
    expect(managerRun).toMatchObject({ agent: "manager", workflowId: `${result.workflowId}/trip-1/call_0_0` });
    expect(workerRun).toMatchObject({
      agent: "worker",
      workflowId: `${managerRun.workflowId}/trip-1/call_1_0`,
      stopReason: "answered",
    });
    expect(workerRun.trace!.find((e) => e.type === "model.answered")).toMatchObject({ text: "Tasks: A and B." });
    expect(result.usage?.totalTokens).toBe(2 + 20 + 100);
    expect(
      Object.fromEntries(Object.entries(result.usageByAgent!).map(([agent, u]) => [agent, u.totalTokens])),
    ).toEqual({ lead: 2, manager: 20, worker: 100 });
  });
});

describe("typed output and context", () => {
  it("a sub-agent with an output schema returns its typed output as the tool result; the caller's context reaches the sub-agent's tools", async () => {
    const seen: unknown[] = [];
    const invoice = ai.tool({
      name: "lookup_invoice",
      input: z.object({ id: z.string() }),
      execute: async ({ id }, ctx) => (seen.push(ctx.context), { id, amount: 42 }),
    });
    const model = await startScriptedModel(
      byAgent({
        triage: [{ toolCalls: [ask("billing", "Invoice 7?")] }, "It is $42."],
        billing: [{ toolCalls: [{ name: "lookup_invoice", arguments: { id: "7" } }] }, '{"invoice":"7","amount":42}'],
      }),
    );
    const billing = testAgent("billing", model.baseURL, {
      tools: [invoice],
      output: z.object({ invoice: z.string(), amount: z.number() }),
    });
    const triage = testAgent("triage", model.baseURL, { tools: [billing.asTool()] });
    const result = await withWorker(harness, [triage], ({ taskQueue }) =>
      triage.run("Invoice 7?", { client: harness.client, taskQueue, context: { userId: "u-1" } }),
    );
    await model.close();
    expect(result.toolCalls[0]).toMatchObject({ name: "billing", status: "ok", output: { invoice: "7", amount: 42 } });
    const secondTriage = model.requests.filter((r) => agentOf(r) === "triage")[1]!;
    expect(JSON.parse(String(secondTriage.body.messages.at(-1)!.content))).toEqual({ invoice: "7", amount: 42 });
    expect(seen).toEqual([{ userId: "u-1" }]);
  });
});

describe("a sub-agent that stops without an answer is a failed tool result, not a failed run", () => {
  it("max-trips and a failed child run reach the calling model with the reason; actWhenAsked may require a sub-agent tool", async () => {
    const model = await startScriptedModel(
      byAgent({
        triage: [
          { toolCalls: [ask("looper", "Go"), ask("broken", "Go")] },
          "Neither could help.",
          { toolCalls: [ask("looper", "Again")] },
          "Still stuck.",
        ],
        looper: Array(4).fill({ toolCalls: [{ name: "lookup_invoice", arguments: { id: "1" } }] }),
        broken: [{ status: 401 }],
      }),
    );
    const looper = testAgent("looper", model.baseURL, { tools: [lookup], maxTrips: 2 });
    const broken = testAgent("broken", model.baseURL);
    const triage = testAgent("triage", model.baseURL, {
      tools: [looper.asTool(), broken.asTool()],
      actWhenAsked: { intents: ["fix"], requiredTools: ["looper"] },
    });
    const result = await withWorker(harness, [triage], ({ taskQueue }) =>
      triage.run("Fix my invoice", { client: harness.client, taskQueue }),
    );
    await model.close();
    expect(result.stopReason).toBe("answered");
    expect(result.toolCalls.slice(0, 2)).toMatchObject([
      {
        name: "looper",
        status: "failed",
        error: "The looper agent stopped without an answer: max-trips (maxTrips (2) used up)",
      },
      { name: "broken", status: "failed", error: expect.stringMatching(/^The broken agent failed: .*401/) },
    ]);
    const triageSecond = model.requests.filter((r) => agentOf(r) === "triage")[1]!;
    expect(
      triageSecond.body.messages.filter((m) => m.role === "tool").map((m) => JSON.parse(String(m.content)).error),
    ).toEqual([
      "The looper agent stopped without an answer: max-trips (maxTrips (2) used up)",
      expect.stringContaining("The broken agent failed"),
    ]);
    // No successful looper call yet: actWhenAsked re-prompts once, naming the sub-agent tool.
    expect(result.trace).toContainEqual(expect.objectContaining({ type: "reprompt", kind: "act-when-asked" }));
    expect(
      finishedOf(result.trace)
        .map((e) => `${e.agent} ${e.stopReason}`)
        .sort(),
    ).toEqual(["broken failed", "looper max-trips", "looper max-trips"]);
  });
});

describe("usage and budgets across the tree", () => {
  const cutAfterUsage =
    'data: {"id":"c","created":1,"model":"m","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"half"},"finish_reason":null}]}\n\n' +
    'data: {"id":"c","created":1,"model":"m","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":4,"completion_tokens":1,"total_tokens":5}}\n\n';

  it("a child gets what is left of the caller's budget and stops at it; its usage, failed attempts included, counts in the caller's, which stops too", async () => {
    const model = await startScriptedModel(
      byAgent({
        triage: [{ toolCalls: [ask("billing", "Check all invoices")] }, "Unreached."],
        billing: [
          { raw: cutAfterUsage, hangUp: true },
          ...Array(5).fill({ toolCalls: [{ name: "lookup_invoice", arguments: { id: "1" } }] }),
        ],
      }),
      { usage: usageByAgent({ triage: 10, billing: 100 }) },
    );
    const billing = testAgent("billing", model.baseURL, { tools: [lookup], budget: { maxTokens: 1000 } });
    const triage = testAgent("triage", model.baseURL, { tools: [billing.asTool()], budget: { maxTokens: 120 } });
    const result = await withWorker(harness, [triage], ({ taskQueue }) =>
      triage.run("Check my invoices", { client: harness.client, taskQueue }),
    );
    await model.close();
    const billingRun = finishedOf(result.trace)[0]!;
    // billing's budget: the tighter of its own 1000 and the 110 triage had left; 5 (failed attempt) + 100 < 110, then 205 ≥ 110.
    expect(billingRun).toMatchObject({
      stopReason: "budget",
      usage: { totalTokens: 205, modelCalls: 3, failedAttempts: { totalTokens: 5, attempts: 1 } },
    });
    expect(billingRun.trace!.find((e) => e.type === "budget.used-up")).toMatchObject({
      budget: { maxTokens: 110 },
      used: "205 of 110 tokens",
    });
    expect(result.toolCalls[0]).toMatchObject({
      status: "failed",
      error: expect.stringContaining("stopped without an answer: budget"),
    });
    expect(result).toMatchObject({
      stopReason: "budget",
      trips: 1,
      usage: { totalTokens: 215, failedAttempts: { totalTokens: 5, attempts: 1 } },
    });
    expect(result.usageByAgent).toMatchObject({ triage: { totalTokens: 10 }, billing: { totalTokens: 205 } });
  });
});

describe("approvals across agents", () => {
  it("a sub-agent's call that needs approval shows on the caller: pendingApprovals, current details; reject on the caller's handle reaches the child", async () => {
    const executed: unknown[] = [];
    const refund = ai.tool({
      name: "refund",
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      execute: async (input) => (executed.push(input), { ok: true }),
    });
    const model = await startScriptedModel(
      byAgent({
        triage: [{ toolCalls: [ask("billing", "Refund $42")] }, "Billing could not refund."],
        billing: [{ toolCalls: [{ name: "refund", arguments: { amount: 42 } }] }, "The refund was rejected."],
      }),
    );
    const billing = testAgent("billing", model.baseURL, { tools: [refund] });
    const triage = testAgent("triage", model.baseURL, { tools: [billing.asTool()] });
    const out = await withWorker(harness, [triage], async ({ taskQueue }) => {
      const handle = await triage.start("Refund me", { client: harness.client, taskQueue });
      let approval: StreamedRunEvent | undefined;
      for await (const event of handle.stream())
        if (event.type === "approval" && event.outcome === "requested") {
          approval = event;
          break;
        }
      const pending = await handle.pendingApprovals();
      const details = (await handle.workflow.query<{ currentDetails?: string }>("__temporal_workflow_metadata"))
        .currentDetails;
      await expect(handle.approve("call_nope")).rejects.toThrow(
        /No tool call "call_nope" is waiting for approval \(waiting: call_1_0 \(billing\)\)/,
      );
      await handle.reject(pending[0]!.callId, "refunds need a manager");
      return { approval, pending, details, result: await handle.result(), after: await handle.pendingApprovals() };
    });
    await model.close();
    const childId = `${out.result.workflowId}/trip-1/call_0_0`;
    expect(out.approval).toMatchObject({ agents: ["triage", "billing"], workflowId: childId, tool: "refund" });
    expect(out.pending).toEqual([
      {
        callId: "call_1_0",
        tool: "refund",
        agent: "billing",
        agents: ["triage", "billing"],
        workflowId: childId,
        input: { amount: 42 },
        trip: 1,
      },
    ]);
    expect(out.details).toContain("⏸ sub-agent triage › billing waits for approval of refund (call_1_0)");
    expect(executed).toEqual([]);
    expect(out.after).toEqual([]);
    const billingRun = finishedOf(out.result.trace)[0]!;
    expect(billingRun.trace!.find((e) => e.type === "tool.finished")).toMatchObject({
      status: "refused",
      reason: "rejected by a person: refunds need a manager",
    });
    expect(out.result.reply).toBe("Billing could not refund.");
  });
});

describe("cancellation", () => {
  it("cancelling the caller cancels its running child; both end with stopReason cancelled", async () => {
    let childAsked!: () => void;
    const asked = new Promise<void>((resolve) => (childAsked = resolve));
    const model = await startScriptedModel(
      byAgent({
        triage: [{ toolCalls: [ask("slow", "Take your time")] }],
        slow: [
          async (request) => {
            childAsked();
            await request.closed; // held until the worker gives up the call (cancelled)
            return "never sent";
          },
        ],
      }),
    );
    const slow = testAgent("slow", model.baseURL);
    const triage = testAgent("triage", model.baseURL, { tools: [slow.asTool()] });
    const { result, child } = await withWorker(harness, [triage], async ({ taskQueue }) => {
      const handle = await triage.start("Go slow", { client: harness.client, taskQueue });
      await asked;
      await handle.cancel();
      const result = await handle.result();
      const child = await harness.client.workflow.getHandle(`${result.workflowId}/trip-1/call_0_0`).result();
      return { result, child };
    });
    await model.close();
    expect(result.stopReason).toBe("cancelled");
    expect(result.trace.at(-1)).toMatchObject({
      type: "run.stopped",
      detail: "cancelled during trip 1: tool calls slow",
    });
    expect(child).toMatchObject({ stopReason: "cancelled" });
  });
});

describe("handoffs", () => {
  it("inputFilter trims what the next agent sees; maxTrips counts across the run", async () => {
    const model = await startScriptedModel(
      byAgent({
        triage: [
          { toolCalls: [{ name: "lookup_invoice", arguments: { id: "9" } }] },
          {
            toolCalls: [
              { name: "transfer_to_billing", arguments: {} },
              { name: "transfer_to_support", arguments: {} },
            ],
          },
        ],
        billing: [
          { toolCalls: [{ name: "lookup_invoice", arguments: { id: "9" } }] },
          "Never reached: trip 4 is over maxTrips.",
        ],
      }),
    );
    const billing = testAgent("billing", model.baseURL, { tools: [lookup], maxTrips: 10 });
    const support = testAgent("support", model.baseURL);
    const triage = testAgent("triage", model.baseURL, {
      tools: [lookup],
      maxTrips: 3,
      handoffs: [{ agent: billing, inputFilter: (messages) => messages.filter((m) => m.role === "user") }, support],
    });
    const result = await withWorker(harness, [triage], ({ taskQueue }) =>
      triage.run("Invoice 9 is wrong", { client: harness.client, taskQueue }),
    );
    await model.close();
    expect(result).toMatchObject({ stopReason: "max-trips", trips: 3, agent: "billing" });
    expect(result.toolCalls.map((c) => [c.name, c.status])).toEqual([
      ["lookup_invoice", "ok"],
      ["transfer_to_billing", "ok"],
      ["transfer_to_support", "refused"],
      ["lookup_invoice", "ok"],
    ]);
    const billingRequest = model.requests.find((r) => agentOf(r) === "billing")!;
    expect(billingRequest.body.messages).toEqual([
      { role: "system", content: "You are billing." },
      { role: "user", content: "Invoice 9 is wrong" },
    ]);
  });
});

describe("eval", () => {
  it("the scorers see the sub-agent call as a tool call", async () => {
    const model = await startScriptedModel(
      byAgent({ triage: [{ toolCalls: [ask("billing", "Refund")] }, "Billing refunded it."], billing: ["Refunded."] }),
    );
    const billing = testAgent("billing", model.baseURL);
    const triage = testAgent("triage", model.baseURL, { tools: [billing.asTool()] });
    const report = await withWorker(harness, [triage], ({ taskQueue }) =>
      triage.eval({
        cases: [{ name: "refund", input: "Refund my order" }],
        scorers: [
          ai.eval.requiredToolCalled({ tools: ["billing"] }),
          ai.eval.changeClaimedWithoutToolCall({ tools: ["billing"] }),
        ],
        client: harness.client,
        taskQueue,
      }),
    );
    await model.close();
    expect(report.rows.map((r) => [r.scorer, r.status])).toEqual([
      ["requiredToolCalled", "pass"],
      ["changeClaimedWithoutToolCall", "pass"],
    ]);
    expect(report.runs[0]).toMatchObject({ toolCalls: [{ name: "billing", status: "ok" }] });
  });
});

describe("history cost", () => {
  it("of one sub-agent call against a plain tool call (events and bytes, caller and child)", async () => {
    const model = await startScriptedModel(
      byAgent({
        plain: [{ toolCalls: [{ name: "lookup_invoice", arguments: { id: "7" } }] }, "It is $42."],
        caller: [{ toolCalls: [ask("billing", "Invoice 7?")] }, "It is $42."],
        billing: ["Invoice 7 is $42."],
      }),
    );
    const plain = testAgent("plain", model.baseURL, { tools: [lookup] });
    const billing = testAgent("billing", model.baseURL);
    const caller = testAgent("caller", model.baseURL, { tools: [billing.asTool()] });
    const cost = async (workflowId: string) => {
      const history = await harness.client.workflow.getHandle(workflowId).fetchHistory();
      const events = history.events ?? [];
      const child = events.filter(
        (e) =>
          e.startChildWorkflowExecutionInitiatedEventAttributes ||
          e.childWorkflowExecutionStartedEventAttributes ||
          e.childWorkflowExecutionCompletedEventAttributes,
      );
      return { events: events.length, bytes: Buffer.byteLength(historyToJSON(history)), childEvents: child.length };
    };
    const { plainCost, callerCost, childCost } = await withWorker(harness, [plain, caller], async ({ taskQueue }) => {
      const a = await plain.run("Invoice 7?", { client: harness.client, taskQueue });
      const b = await caller.run("Invoice 7?", { client: harness.client, taskQueue });
      return {
        plainCost: await cost(a.workflowId),
        callerCost: await cost(b.workflowId),
        childCost: await cost(b.toolCalls[0]!.childWorkflowId!),
      };
    });
    await model.close();
    expect(callerCost.childEvents).toBe(3); // initiated, started, completed
    console.log(
      [
        "history cost of one call (the same two trips otherwise):",
        `  plain tool call:  caller ${plainCost.events} events, ${plainCost.bytes} bytes`,
        `  sub-agent call:   caller ${callerCost.events} events, ${callerCost.bytes} bytes; child run ${childCost.events} events, ${childCost.bytes} bytes`,
        `  difference:       caller ${callerCost.events - plainCost.events} events, ${callerCost.bytes - plainCost.bytes} bytes; with the child ${callerCost.events + childCost.events - plainCost.events} events, ${callerCost.bytes + childCost.bytes - plainCost.bytes} bytes`,
      ].join("\n"),
    );
    expect(callerCost.events).toBeGreaterThan(plainCost.events);
  });
});
