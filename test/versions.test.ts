/**
 * Issue 24, items 1 and 3: every run knows which agent definition answered (`agent.version`,
 * `result.agentVersion`, DurableAgentVersion, the trace's answers, `agent.changed`), and approvals
 * that wait for days (across a worker restart onto a new definition; who decided and when;
 * canDecide; late decisions, cancelled calls and closed runs; the `decide` signal of the Temporal
 * UI; an approver in an eval).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ai,
  AgentDefinitionChangedError,
  ApprovalNotWaitingError,
  ApprovalRefusedError,
  type Agent,
  type AgentOptions,
  type EvalRecord,
  type RunHandle,
  type StreamedRunEvent,
} from "../src/index.js";
import { SEARCH_ATTRIBUTES } from "../src/core/search-attributes.js";
import { compactSource } from "../src/agent/agent-version.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { coach } from "./fixtures/versioned-agent.js";
import { cli } from "./support/cli-helpers.js";
import { replaysAndKeeps } from "./support/history-helpers.js";
import { startHttpMcpServer } from "./fixtures/mcp/http-server.js";
import { ask, byAgent, testAgent } from "./support/subagent-helpers.js";
import { connectHarness, taskQueue, withWorker, type Harness } from "./support/harness.js";
import type { AgentWorkerOptions } from "../src/worker.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const swap = { toolCalls: [{ id: "call_swap", name: "update_plan", arguments: { from: "squats", to: "lunges" } }] };
const planTool = (description = "Swap an exercise.") =>
  ai.tool({
    name: "update_plan",
    description,
    input: z.object({ from: z.string(), to: z.string() }),
    needsApproval: true,
    execute: async () => ({ ok: true }),
  });
const define = (baseURL: string, options: Partial<AgentOptions> = {}) =>
  ai.agent({
    name: "versioned-coach",
    model: ai.openai("gpt-test", { baseURL }),
    instructions: "Coach.",
    tools: [planTool()],
    ...options,
  });

describe("agent.version", () => {
  const base = (options: Partial<AgentOptions> = {}, baseURL = "http://127.0.0.1:1/v1") =>
    define(baseURL, options).version;

  it("is the same for the same definition (wherever the model is, whatever the key), and changes with each part that decides behaviour", () => {
    expect(base()).toMatch(/^[0-9a-f]{16}$/);
    expect(base({}, "http://10.0.0.7:8080/v1")).toBe(base());
    expect(
      define("http://x", {
        model: ai.openai("gpt-test", {
          baseURL: "http://y",
          apiKey: "k",
          pricing: { inputPerMillion: 1, outputPerMillion: 2 },
        }),
      }).version,
    ).toBe(base());
    const billing = (instructions: string) => ai.agent({ name: "billing", model: ai.openai("gpt-test"), instructions });
    const changed = {
      instructions: base({ instructions: "Coach kindly." }),
      dynamicInstructions: base({ instructions: ({ input }) => `Coach: ${input}` }),
      otherFunction: base({ instructions: ({ input }) => `Coach briefly: ${input}` }),
      model: base({ model: ai.openai("gpt-other") }),
      settings: base({ model: ai.openai("gpt-test", { temperature: 0.1 }) }),
      toolDescription: base({ tools: [planTool("Swap one exercise for another.")] }),
      toolSchema: base({
        tools: [
          ai.tool({
            name: "update_plan",
            description: "Swap an exercise.",
            input: z.object({ from: z.string(), to: z.string(), sets: z.number() }),
            needsApproval: true,
            execute: async () => ({}),
          }),
        ],
      }),
      mcp: base({ tools: [planTool(), ai.mcp({ name: "gym", url: "http://127.0.0.1:1/mcp" })] }),
      contract: base({ actWhenAsked: { intents: [/swap/], requiredTools: ["update_plan"] } }),
      maxTrips: base({ maxTrips: 3 }),
      output: base({ output: z.object({ reply: z.string() }) }),
      subAgent: base({ tools: [planTool(), billing("Look invoices up.").asTool()] }),
      subAgentChanged: base({ tools: [planTool(), billing("Look invoices up, politely.").asTool()] }),
      handoff: base({ handoffs: [billing("Look invoices up.")] }),
      handoffChanged: base({ handoffs: [billing("Refund.")] }),
    };
    const all = [base(), ...Object.values(changed)];
    expect(new Set(all).size).toBe(all.length);
    expect(base({ version: "coach@2026-12-01" })).toBe("coach@2026-12-01");
    // The same source of a function is the same version, however a transpiler spaced it.
    expect(base({ instructions: ({ input }) => `Coach: ${input}` })).toBe(changed.dynamicInstructions);
    expect(compactSource("({input})=>`Coach:  ${input}`")).toBe(compactSource("({ input }) =>\n  `Coach:  ${input}`"));
    expect(compactSource("function f(a) { return a }")).toBe("function f(a){return a}");
  });

  it("is computed the same in another process, with another model URL and key", async () => {
    const script = `import("./test/fixtures/versioned-agent.ts").then((m) => console.log(m.coach.version))`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--conditions=durable-agent-source", "-e", script],
      {
        env: { ...process.env, MODEL_URL: "http://192.168.1.5:9999/v1", MODEL_KEY: "another-key" },
      },
    );
    expect(stdout.trim()).toBe(coach.version);
  });

  it("handoffs that point at each other still have versions", () => {
    const options = { model: ai.openai("gpt-test") };
    const handoffs: Agent[] = [];
    const a = ai.agent({ name: "a", ...options, handoffs });
    const b = ai.agent({ name: "b", ...options, handoffs: [a] });
    handoffs.push(b);
    expect(a.version).toMatch(/^[0-9a-f]{16}$/);
    expect(b.version).not.toBe(a.version);
  });

  it("version and onDefinitionChange are checked", () => {
    expect(() => ai.agent({ model: ai.openai("m"), version: "has space" })).toThrow(/Invalid option `version`/);
    expect(() => ai.agent({ model: ai.openai("m"), onDefinitionChange: "stop" as "fail" })).toThrow(
      /`onDefinitionChange`: must be "continue" or "fail"/,
    );
  });
});

type ApprovalEvent = Extract<StreamedRunEvent, { type: "approval" }>;
async function approvalEvent(handle: RunHandle, outcome: ApprovalEvent["outcome"]): Promise<ApprovalEvent> {
  for await (const event of handle.stream()) if (event.type === "approval" && event.outcome === outcome) return event;
  throw new Error(`the run ended without an approval event "${outcome}"`);
}

async function searchAttribute(handle: RunHandle): Promise<string | undefined> {
  return (await handle.workflow.describe()).typedSearchAttributes.get(SEARCH_ATTRIBUTES.version);
}

/** Serves `agent` on the queue until `fn` ends (a worker of one build). */
function serve<T>(
  agent: Agent,
  queue: string,
  fn: () => Promise<T>,
  options: Partial<AgentWorkerOptions> = {},
): Promise<T> {
  return withWorker(harness, [agent], fn, { taskQueue: queue, searchAttributes: true, ...options });
}

describe("a run records the definition that served it", () => {
  let model: ScriptedModel;
  afterAll(() => model?.close());

  it("result.agentVersion, the trace and DurableAgentVersion (durable-agent list --query finds the run)", async () => {
    model = await startScriptedModel(["Hello."]);
    const agent = define(model.baseURL);
    const queue = taskQueue();
    const { result, attribute } = await serve(agent, queue, async () => {
      const handle = await agent.start("Hi", { client: harness.client, taskQueue: queue });
      const result = await handle.result();
      return { result, attribute: await searchAttribute(handle) };
    });
    expect(result.agentVersion).toBe(agent.version);
    expect(attribute).toBe(agent.version);
    expect(result.trace.filter((e) => e.type === "agent.changed")).toEqual([]);
    const listed = await cli([
      "list",
      "--query",
      `DurableAgentVersion = "${agent.version}" AND WorkflowId = "${result.workflowId}"`,
      "--json",
    ]);
    expect(listed.code).toBe(0);
    expect(
      listed.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line)),
    ).toMatchObject([{ workflowId: result.workflowId }]);
  });
});

describe("the trace names the version that answered", () => {
  it("each model.answered entry carries agentVersion: in handle.trace() of a live, unchanged run and in result.trace", async () => {
    const model = await startScriptedModel([swap, "Swapped."]);
    const agent = define(model.baseURL);
    const queue = taskQueue();
    const { live, streamed, result } = await serve(agent, queue, async () => {
      const handle = await agent.start("Swap squats for lunges", { client: harness.client, taskQueue: queue });
      const streamed: StreamedRunEvent[] = [];
      for await (const event of handle.stream()) {
        streamed.push(event);
        if (event.type === "approval" && event.outcome === "requested") break;
      }
      const live = await handle.trace();
      await handle.approve("call_swap", { by: "alice" });
      const result = await handle.result();
      await replaysAndKeeps(handle, "trace-agent-version");
      return { live, streamed, result };
    });
    // While the run waits: its one answer names the version, and nothing says the definition changed.
    expect(live.filter((e) => e.type === "model.answered")).toMatchObject([
      { trip: 1, type: "model.answered", toolCalls: ["update_plan"], agentVersion: agent.version },
    ]);
    expect(live.some((e) => e.type === "agent.changed")).toBe(false);
    expect(streamed.find((e) => e.type === "model.answered")).toMatchObject({ trip: 1, agentVersion: agent.version });
    const answered = result.trace.filter((e) => e.type === "model.answered");
    expect(answered.map((e) => [e.trip, e.type === "model.answered" && e.agentVersion])).toEqual([
      [1, agent.version],
      [2, agent.version],
    ]);
    expect(result.trace.some((e) => e.type === "agent.changed")).toBe(false);
    await model.close();
  });
});

describe("a run that waits for approval across a worker restart onto a new definition", () => {
  it("is answered by build B after the restart: agent.changed in the trace, agentVersion and DurableAgentVersion follow; the approval names its approver; a refused approver gets ApprovalRefusedError and the call still waits", async () => {
    const model = await startScriptedModel([swap, "Swapped to lunges."]);
    const buildA = define(model.baseURL);
    const buildB = define(model.baseURL, { instructions: "Coach, and say which exercise you swapped." });
    expect(buildB.version).not.toBe(buildA.version);
    const queue = taskQueue();
    // Build A: the run starts, the model asks for update_plan, the call waits for a person.
    const handle = await serve(buildA, queue, async () => {
      const handle = await buildA.start("Swap squats for lunges", { client: harness.client, taskQueue: queue });
      await approvalEvent(handle, "requested");
      return handle;
    });
    expect(await searchAttribute(handle)).toBe(buildA.version);
    // Build B, with a canDecide that lets only coaches decide.
    const asked: unknown[] = [];
    const canDecide = ({
      by,
      tool,
      input,
      agent,
      approve,
    }: {
      by: string | undefined;
      tool: string;
      input: unknown;
      agent: string;
      approve: boolean;
    }) => (asked.push({ by, tool, input, agent, approve }), by === "alice");
    const { result, refusal, waitingAfterRefusal, approved, late } = await serve(
      buildB,
      queue,
      async () => {
        const refusal = await handle.approve("call_swap", { by: "mallory" }).catch((error: unknown) => error);
        const waitingAfterRefusal = await handle.pendingApprovals();
        await handle.approve("call_swap", { by: "alice", note: "lunges are fine for her knee" });
        const approved = await approvalEvent(handle, "approved");
        const result = await handle.result();
        const late = await handle.approve("call_swap", { by: "alice" }).catch((error: unknown) => error);
        return { result, refusal, waitingAfterRefusal, approved, late };
      },
      { approvals: { canDecide } },
    );
    expect(ApprovalRefusedError.isInstance(refusal)).toBe(true);
    expect(refusal).toMatchObject({ callId: "call_swap", by: "mallory", why: "canDecide returned false" });
    expect((refusal as Error).message).toMatch(
      /canDecide refused "mallory" for update_plan \(call_swap\).*still waits/,
    );
    expect(waitingAfterRefusal).toMatchObject([{ callId: "call_swap", tool: "update_plan" }]);
    expect(asked).toEqual([
      {
        by: "mallory",
        tool: "update_plan",
        input: { from: "squats", to: "lunges" },
        agent: "versioned-coach",
        approve: true,
      },
      {
        by: "alice",
        tool: "update_plan",
        input: { from: "squats", to: "lunges" },
        agent: "versioned-coach",
        approve: true,
      },
    ]);
    // Who decided, and when: in the stream's approval event, the trace and the result.
    expect(approved).toMatchObject({
      outcome: "approved",
      by: "alice",
      note: "lunges are fine for her knee",
      decidedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(result.trace.filter((e) => e.type === "approval")).toMatchObject([
      { outcome: "requested" },
      { outcome: "approved", by: "alice", decidedAt: approved.decidedAt },
    ]);
    // Trip 2 was answered by build B: its instructions reached the model, and the run says so.
    expect(model.requests[1]!.body.messages[0]).toMatchObject({
      role: "system",
      content: "Coach, and say which exercise you swapped.",
    });
    expect(result.trace.filter((e) => e.type === "agent.changed")).toEqual([
      { trip: 2, type: "agent.changed", agent: "versioned-coach", from: buildA.version, to: buildB.version },
    ]);
    expect(result.agentVersion).toBe(buildB.version);
    expect(await searchAttribute(handle)).toBe(buildB.version);
    expect(result.toolCalls).toMatchObject([{ name: "update_plan", status: "ok" }]);
    // A run that ended does not take decisions: the error says how the call ended and that the run has closed.
    expect(ApprovalNotWaitingError.isInstance(late)).toBe(true);
    expect(late).toMatchObject({
      callId: "call_swap",
      state: "approved",
      message: expect.stringMatching(
        /it was already approved by alice at \d{4}-.*has since completed \(stopReason "answered"\)\. Nothing was changed/,
      ),
    });
    await replaysAndKeeps(handle, "approver-definition-changed");
    await model.close();
  });

  it('onDefinitionChange: "fail" fails the run with AgentDefinitionChangedError when another definition answers', async () => {
    const model = await startScriptedModel([swap, "Swapped."]);
    const buildA = define(model.baseURL, { onDefinitionChange: "fail" });
    const buildB = define(model.baseURL, { onDefinitionChange: "fail", instructions: "Coach tersely." });
    const queue = taskQueue();
    const handle = await serve(buildA, queue, async () => {
      const handle = await buildA.start("Swap squats for lunges", { client: harness.client, taskQueue: queue });
      await approvalEvent(handle, "requested");
      return handle;
    });
    const error = await serve(buildB, queue, async () => {
      await handle.approve("call_swap", { by: "alice" });
      return handle.result().catch((e: unknown) => e);
    });
    expect(AgentDefinitionChangedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ agent: "versioned-coach", from: buildA.version, to: buildB.version, trip: 2 });
    await model.close();
  });
});

describe("decisions on calls that wait for approval", () => {
  /** A model whose second answer waits for `release`, so the run is still live after the call stopped waiting. */
  async function heldModel() {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const model = await startScriptedModel(async ({ index }) => (index === 0 ? swap : (await held, "Done.")));
    return { model, release };
  }

  it("a decision for a call that timed out, or that was already decided, fails with ApprovalNotWaitingError saying which, and changes nothing", async () => {
    const { model, release } = await heldModel();
    const agent = define(model.baseURL, {
      tools: [
        ai.tool({
          name: "update_plan",
          input: z.object({ from: z.string(), to: z.string() }),
          needsApproval: true,
          approvalTimeout: "200 milliseconds",
          execute: async () => ({ ok: true }),
        }),
      ],
    });
    const queue = taskQueue();
    const { timedOut, result } = await serve(agent, queue, async () => {
      const handle = await agent.start("Swap squats for lunges", { client: harness.client, taskQueue: queue });
      await approvalEvent(handle, "timed-out");
      const timedOut = await handle.approve("call_swap", { by: "alice" }).catch((e: unknown) => e);
      release();
      return { timedOut, result: await handle.result() };
    });
    expect(ApprovalNotWaitingError.isInstance(timedOut)).toBe(true);
    expect(timedOut).toMatchObject({
      callId: "call_swap",
      state: "timed-out",
      message: expect.stringMatching(/no longer waiting for approval: it timed out after 200 ms.*Nothing was changed/),
    });
    expect(result.toolCalls).toMatchObject([{ status: "refused", reason: "no approval within 200 ms" }]);
    expect(result.trace.filter((e) => e.type === "approval").map((e) => e.type === "approval" && e.outcome)).toEqual([
      "requested",
      "timed-out",
    ]);

    const second = await heldModel();
    const decided = define(second.model.baseURL);
    const out = await serve(decided, queue, async () => {
      const handle = await decided.start("Swap squats for lunges", { client: harness.client, taskQueue: queue });
      await approvalEvent(handle, "requested");
      await handle.reject("call_swap", { by: "bob", reason: "not this week" });
      await approvalEvent(handle, "rejected");
      const again = await handle.approve("call_swap", { by: "alice" }).catch((e: unknown) => e);
      second.release();
      const result = await handle.result();
      await replaysAndKeeps(handle, "approval-rejected-then-late");
      return { again, result };
    });
    expect(out.again).toMatchObject({
      name: "ApprovalNotWaitingError",
      state: "rejected",
      message: expect.stringMatching(/it was already rejected by bob at \d{4}-/),
    });
    expect(out.result.toolCalls).toMatchObject([{ status: "refused", reason: "rejected by a person: not this week" }]);
    await model.close();
    await second.model.close();
  });

  it("a decision for a call whose run was cancelled (or terminated) while it waited fails with ApprovalNotWaitingError saying how the run closed, and changes nothing", async () => {
    const executed: unknown[] = [];
    const model = await startScriptedModel([swap, swap]);
    const agent = define(model.baseURL, {
      tools: [
        ai.tool({
          name: "update_plan",
          input: z.object({ from: z.string(), to: z.string() }),
          needsApproval: true,
          execute: async (input) => (executed.push(input), { ok: true }),
        }),
      ],
    });
    const queue = taskQueue();
    const out = await serve(agent, queue, async () => {
      const cancelled = await agent.start("Swap squats for lunges", { client: harness.client, taskQueue: queue });
      await approvalEvent(cancelled, "requested");
      await cancelled.cancel();
      const result = await cancelled.result();
      const eventsBefore = (await cancelled.workflow.describe()).historyLength;
      const approve = await cancelled.approve("call_swap", { by: "alice" }).catch((e: unknown) => e);
      const reject = await cancelled.reject("call_swap", { by: "bob", reason: "no" }).catch((e: unknown) => e);
      const unknown = await cancelled.approve("call_other").catch((e: unknown) => e);
      const eventsAfter = (await cancelled.workflow.describe()).historyLength;

      const terminated = await agent.start("Swap squats for lunges", { client: harness.client, taskQueue: queue });
      await approvalEvent(terminated, "requested");
      await terminated.workflow.terminate("deploy gone wrong");
      const afterTerminate = await terminated.approve("call_swap", { by: "alice" }).catch((e: unknown) => e);
      return {
        result,
        eventsBefore,
        eventsAfter,
        approve,
        reject,
        unknown,
        afterTerminate,
        workflowId: cancelled.workflowId,
      };
    });
    expect(out.result).toMatchObject({ stopReason: "cancelled" });
    for (const error of [out.approve, out.reject]) {
      expect(ApprovalNotWaitingError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        callId: "call_swap",
        state: "cancelled",
        message: `Tool call "call_swap" is no longer waiting for approval: run ${out.workflowId} stopped while it waited (stopReason "cancelled": cancelled during trip 1: tool calls update_plan), so nobody decided it and it never ran. Nothing was changed; start a new run, or ai.fork() this one, to ask again.`,
      });
    }
    // A call id the run never had is not "no longer waiting".
    expect(ApprovalNotWaitingError.isInstance(out.unknown)).toBe(false);
    expect(out.unknown).toMatchObject({
      name: "UnknownApprovalError",
      callId: "call_other",
      message: expect.stringMatching(
        /^No tool call "call_other" waited for approval in run .*, which has completed \(stopReason "cancelled"\)/,
      ),
    });
    // Nothing changed: the closed run's history has no new event, and the tool never ran.
    expect(out.eventsAfter).toBe(out.eventsBefore);
    expect(executed).toEqual([]);
    expect(
      out.result.trace.filter((e) => e.type === "approval").map((e) => e.type === "approval" && e.outcome),
    ).toEqual(["requested"]);
    // A run that closed without a result (terminated) took its waiting call with it.
    expect(ApprovalNotWaitingError.isInstance(out.afterTerminate)).toBe(true);
    expect(out.afterTerminate).toMatchObject({
      state: "cancelled",
      message: expect.stringMatching(
        /no longer waiting for approval: run \S+ was terminated, and no call of a closed run waits\. Nothing was changed; start a new run/,
      ),
    });
    await model.close();
  });

  it('a sub-agent run cancelled while its call waits tells its caller: the caller goes on, its pendingApprovals drops the call, and a decision on the caller or on the closed sub-agent run fails with ApprovalNotWaitingError "cancelled"', async () => {
    const executed: unknown[] = [];
    let releaseCaller!: () => void;
    const callerHeld = new Promise<void>((resolve) => (releaseCaller = resolve));
    const model = await startScriptedModel(
      byAgent({
        caller: [
          { toolCalls: [ask("billing", "Refund $42", "call_billing")] },
          async () => (await callerHeld, "Billing could not refund."),
        ],
        billing: [{ toolCalls: [{ id: "call_refund", name: "refund", arguments: { amount: 42 } }] }],
      }),
    );
    const refund = ai.tool({
      name: "refund",
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      execute: async (input) => (executed.push(input), { ok: true }),
    });
    const billing = testAgent("billing", model.baseURL, { tools: [refund] });
    const caller = testAgent("caller", model.baseURL, { tools: [billing.asTool()] });
    const queue = taskQueue();
    const out = await serve(caller, queue, async () => {
      const handle = await caller.start("Refund me", { client: harness.client, taskQueue: queue });
      const requested = await approvalEvent(handle, "requested");
      const waiting = await handle.pendingApprovals();
      const child = await ai.getRun(requested.workflowId!, { client: harness.client });
      const finished = (async () => {
        for await (const event of handle.stream()) if (event.type === "subagent.finished") return event;
      })();
      await child.cancel();
      const childResult = await child.result();
      // The caller's subagent.finished comes after the child's notice (the child awaits its delivery before it ends).
      await finished;
      const after = await handle.pendingApprovals();
      const onCaller = await handle.approve("call_refund", { by: "alice" }).catch((e: unknown) => e);
      const onChild = await child.approve("call_refund", { by: "alice" }).catch((e: unknown) => e);
      releaseCaller();
      const result = await handle.result();
      await replaysAndKeeps(child, "approval-cancelled-in-subagent");
      return { requested, waiting, childResult, after, onCaller, onChild, result };
    });
    expect(out.waiting).toMatchObject([{ callId: "call_refund", tool: "refund", agent: "billing" }]);
    expect(out.childResult).toMatchObject({ stopReason: "cancelled" });
    expect(out.after).toEqual([]);
    expect(ApprovalNotWaitingError.isInstance(out.onCaller)).toBe(true);
    expect(out.onCaller).toMatchObject({
      callId: "call_refund",
      state: "cancelled",
      message:
        'Tool call "call_refund" is no longer waiting for approval: it was cancelled while it waited (the run was cancelled or timed out). Nothing was changed.',
    });
    expect(ApprovalNotWaitingError.isInstance(out.onChild)).toBe(true);
    expect(out.onChild).toMatchObject({
      state: "cancelled",
      message: expect.stringMatching(
        /stopped while it waited \(stopReason "cancelled": cancelled during trip 1: tool calls refund\)/,
      ),
    });
    // Nothing changed: refund never ran, and the caller went on without it.
    expect(executed).toEqual([]);
    expect(out.result).toMatchObject({
      stopReason: "answered",
      reply: "Billing could not refund.",
      toolCalls: [{ name: "billing", status: "failed" }],
    });
    await model.close();
  });

  it("an approver who decides during an eval case's run is in the eval record and the report: by, note and decidedAt", async () => {
    const model = await startScriptedModel([
      { toolCalls: [{ id: "call_note", name: "note_run", arguments: {} }, swap.toolCalls[0]!] },
      "Swapped to lunges.",
    ]);
    let runStarted!: (workflowId: string) => void;
    const started = new Promise<string>((resolve) => (runStarted = resolve));
    const noteRun = ai.tool({
      name: "note_run",
      input: z.object({}),
      execute: async (_input, { workflowId }) => (runStarted(workflowId), { ok: true }),
    });
    const agent = define(model.baseURL, { tools: [planTool(), noteRun] });
    const queue = taskQueue();
    const records: EvalRecord[] = [];
    const report = await serve(agent, queue, async () => {
      const evaluated = agent.eval({
        cases: [{ name: "swap", input: "Swap squats for lunges" }],
        scorers: [{ name: "keep", score: (record) => (records.push(record), { pass: true }) }],
        client: harness.client,
        taskQueue: queue,
      });
      // A person approves the eval run's call, as they would in a staging eval with a human in the loop.
      const handle = await ai.getRun(await started, { client: harness.client });
      await approvalEvent(handle, "requested");
      await handle.approve("call_swap", { by: "alice", note: "fine for her knee" });
      return evaluated;
    });
    const decision = {
      callId: "call_swap",
      tool: "update_plan",
      outcome: "approved",
      by: "alice",
      note: "fine for her knee",
      decidedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    };
    expect(records).toHaveLength(1);
    expect(records[0]!.approvals).toEqual([decision]);
    expect(records[0]).toMatchObject({
      agentVersion: agent.version,
      reply: "Swapped to lunges.",
      toolCalls: [
        { name: "note_run", status: "ok" },
        { name: "update_plan", status: "ok" },
      ],
    });
    // The record's time is the decision's, as the trace has it.
    const approved = records[0]!.trace.find((e) => e.type === "approval" && e.outcome === "approved");
    expect(approved).toMatchObject({ by: "alice", decidedAt: records[0]!.approvals![0]!.decidedAt });
    expect(report.runs).toMatchObject([
      { approvals: [{ ...decision, decidedAt: records[0]!.approvals![0]!.decidedAt }] },
    ]);
    await model.close();
  });

  it("the decide signal (the Temporal UI's Send a Signal, with a JSON body) approves, gated by the same canDecide", async () => {
    const model = await startScriptedModel([swap, "Done."]);
    const agent = define(model.baseURL);
    const queue = taskQueue();
    const result = await serve(
      agent,
      queue,
      async () => {
        const handle = await agent.start("Swap squats for lunges", { client: harness.client, taskQueue: queue });
        await approvalEvent(handle, "requested");
        await handle.workflow.signal("decide", { callId: "call_swap", decision: "approve", by: "mallory" });
        await handle.workflow.signal("decide", { callId: "call_swap", decision: "nope" });
        await handle.workflow.signal("decide", {
          callId: "call_swap",
          decision: "approve",
          by: "alice",
          note: "from the UI",
        });
        const result = await handle.result();
        await replaysAndKeeps(handle, "approval-decide-signal");
        return result;
      },
      { approvals: { canDecide: ({ by }) => by === "alice" } },
    );
    expect(result.trace.filter((e) => e.type === "approval")).toMatchObject([
      { outcome: "requested" },
      { outcome: "approved", by: "alice", note: "from the UI" },
    ]);
    expect(result.toolCalls).toMatchObject([{ status: "ok" }]);
    await model.close();
  });

  it("agent.asTool({ needsApproval, approvalTimeout }) waits for approval before the sub-agent runs; the eval record carries the decision and the version", async () => {
    const model = await startScriptedModel([
      { toolCalls: [{ id: "call_billing", name: "billing", arguments: { message: "Refund $42" } }] },
      "I could not get that approved.",
    ]);
    const billing = ai.agent({ name: "billing", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const agent = define(model.baseURL, {
      tools: [billing.asTool({ needsApproval: true, approvalTimeout: "200 milliseconds" })],
    });
    const queue = taskQueue();
    const records: EvalRecord[] = [];
    const report = await serve(agent, queue, () =>
      agent.eval({
        cases: [{ name: "refund", input: "Refund invoice 7" }],
        scorers: [{ name: "keep", score: (record) => (records.push(record), { pass: true }) }],
        client: harness.client,
        taskQueue: queue,
      }),
    );
    const decision = {
      callId: "call_billing",
      tool: "billing",
      outcome: "timed-out",
      reason: "no approval within 200 ms",
    };
    expect(records).toMatchObject([
      { agentVersion: agent.version, approvals: [decision], toolCalls: [{ name: "billing", status: "refused" }] },
    ]);
    expect(report.agentVersion).toBe(agent.version);
    expect(report.runs).toMatchObject([{ agentVersion: agent.version, approvals: [decision] }]);
    // The sub-agent never ran: the model was asked twice, both times by the caller.
    expect(model.requests).toHaveLength(2);
    await model.close();
  });

  it("ai.mcp({ needsApproval, approvalTimeout }) refuses a call nobody approved in time, without calling the server", async () => {
    const http = await startHttpMcpServer();
    const gym = ai.mcp({ name: "gym", url: http.url, needsApproval: true, approvalTimeout: "200 milliseconds" });
    const model = await startScriptedModel([
      { toolCalls: [{ id: "call_mcp", name: "lookup_exercise", arguments: { name: "lunges" } }] },
      "Nobody approved it.",
    ]);
    const agent = ai.agent({
      name: "mcp-approval",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [gym],
    });
    try {
      const queue = taskQueue();
      const result = await serve(agent, queue, () =>
        agent.run("Look lunges up", { client: harness.client, taskQueue: queue }),
      );
      expect(result.toolCalls).toMatchObject([
        { name: "lookup_exercise", status: "refused", reason: "no approval within 200 ms", source: "mcp:gym" },
      ]);
      expect(result.trace.filter((e) => e.type === "approval").map((e) => e.type === "approval" && e.outcome)).toEqual([
        "requested",
        "timed-out",
      ]);
    } finally {
      await gym.close();
      await http.close();
      await model.close();
    }
  });
});
