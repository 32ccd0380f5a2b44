/**
 * Issue 24, items 1 and 3: every run knows which agent definition answered (`agent.version`,
 * `result.agentVersion`, DurableAgentVersion, `agent.changed`), and approvals that wait for days
 * (across a worker restart onto a new definition; who decided and when; canDecide; late
 * decisions; the `decide` signal of the Temporal UI).
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
import { SEARCH_ATTRIBUTES } from "../src/contract/search-attributes.js";
import { compactSource } from "../src/agent/agent-version.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { coach } from "./fixtures/versioned-agent.js";
import { cli } from "./cli-helpers.js";
import { replaysAndKeeps } from "./history-helpers.js";
import { startHttpMcpServer } from "./fixtures/mcp/http-server.js";
import { connectHarness, taskQueue, withWorker, type Harness } from "./harness.js";
import type { AgentWorkerOptions } from "../src/worker.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const swap = { toolCalls: [{ id: "call_swap", name: "update_plan", arguments: { from: "squats", to: "lunges" } }] };
const planTool = (description = "Swap an exercise.") =>
  ai.tool({ name: "update_plan", description, input: z.object({ from: z.string(), to: z.string() }), needsApproval: true, execute: async () => ({ ok: true }) });
const define = (baseURL: string, options: Partial<AgentOptions> = {}) =>
  ai.agent({ name: "versioned-coach", model: ai.openai("gpt-test", { baseURL }), instructions: "Coach.", tools: [planTool()], ...options });

describe("agent.version", () => {
  const base = (options: Partial<AgentOptions> = {}, baseURL = "http://127.0.0.1:1/v1") => define(baseURL, options).version;

  it("is the same for the same definition (wherever the model is, whatever the key), and changes with each part that decides behaviour", () => {
    expect(base()).toMatch(/^[0-9a-f]{16}$/);
    expect(base({}, "http://10.0.0.7:8080/v1")).toBe(base());
    expect(define("http://x", { model: ai.openai("gpt-test", { baseURL: "http://y", apiKey: "k", pricing: { inputPerMillion: 1, outputPerMillion: 2 } }) }).version).toBe(base());
    const billing = (instructions: string) => ai.agent({ name: "billing", model: ai.openai("gpt-test"), instructions });
    const changed = {
      instructions: base({ instructions: "Coach kindly." }),
      dynamicInstructions: base({ instructions: ({ input }) => `Coach: ${input}` }),
      otherFunction: base({ instructions: ({ input }) => `Coach briefly: ${input}` }),
      model: base({ model: ai.openai("gpt-other") }),
      settings: base({ model: ai.openai("gpt-test", { temperature: 0.1 }) }),
      toolDescription: base({ tools: [planTool("Swap one exercise for another.")] }),
      toolSchema: base({ tools: [ai.tool({ name: "update_plan", description: "Swap an exercise.", input: z.object({ from: z.string(), to: z.string(), sets: z.number() }), needsApproval: true, execute: async () => ({}) })] }),
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
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--conditions=durable-agent-source", "-e", script], {
      env: { ...process.env, MODEL_URL: "http://192.168.1.5:9999/v1", MODEL_KEY: "another-key" },
    });
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
    expect(() => ai.agent({ model: ai.openai("m"), onDefinitionChange: "stop" as "fail" })).toThrow(/`onDefinitionChange`: must be "continue" or "fail"/);
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
function serve<T>(agent: Agent, queue: string, fn: () => Promise<T>, options: Partial<AgentWorkerOptions> = {}): Promise<T> {
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
    const listed = await cli(["list", "--query", `DurableAgentVersion = "${agent.version}" AND WorkflowId = "${result.workflowId}"`, "--json"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim().split("\n").map((line) => JSON.parse(line))).toMatchObject([{ workflowId: result.workflowId }]);
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
    const canDecide = ({ by, tool, input, agent, approve }: { by: string | undefined; tool: string; input: unknown; agent: string; approve: boolean }) => (asked.push({ by, tool, input, agent, approve }), by === "alice");
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
    expect((refusal as Error).message).toMatch(/canDecide refused "mallory" for update_plan \(call_swap\).*still waits/);
    expect(waitingAfterRefusal).toMatchObject([{ callId: "call_swap", tool: "update_plan" }]);
    expect(asked).toEqual([
      { by: "mallory", tool: "update_plan", input: { from: "squats", to: "lunges" }, agent: "versioned-coach", approve: true },
      { by: "alice", tool: "update_plan", input: { from: "squats", to: "lunges" }, agent: "versioned-coach", approve: true },
    ]);
    // Who decided, and when: in the stream's approval event, the trace and the result.
    expect(approved).toMatchObject({ outcome: "approved", by: "alice", note: "lunges are fine for her knee", decidedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(result.trace.filter((e) => e.type === "approval")).toMatchObject([{ outcome: "requested" }, { outcome: "approved", by: "alice", decidedAt: approved.decidedAt }]);
    // Trip 2 was answered by build B: its instructions reached the model, and the run says so.
    expect(model.requests[1]!.body.messages[0]).toMatchObject({ role: "system", content: "Coach, and say which exercise you swapped." });
    expect(result.trace.filter((e) => e.type === "agent.changed")).toEqual([{ trip: 2, type: "agent.changed", agent: "versioned-coach", from: buildA.version, to: buildB.version }]);
    expect(result.agentVersion).toBe(buildB.version);
    expect(await searchAttribute(handle)).toBe(buildB.version);
    expect(result.toolCalls).toMatchObject([{ name: "update_plan", status: "ok" }]);
    // A run that ended does not take decisions (the workflow is closed).
    expect(late).toBeInstanceOf(Error);
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
    const agent = define(model.baseURL, { tools: [ai.tool({ name: "update_plan", input: z.object({ from: z.string(), to: z.string() }), needsApproval: true, approvalTimeout: "200 milliseconds", execute: async () => ({ ok: true }) })] });
    const queue = taskQueue();
    const { timedOut, result } = await serve(agent, queue, async () => {
      const handle = await agent.start("Swap squats for lunges", { client: harness.client, taskQueue: queue });
      await approvalEvent(handle, "timed-out");
      const timedOut = await handle.approve("call_swap", { by: "alice" }).catch((e: unknown) => e);
      release();
      return { timedOut, result: await handle.result() };
    });
    expect(ApprovalNotWaitingError.isInstance(timedOut)).toBe(true);
    expect(timedOut).toMatchObject({ callId: "call_swap", state: "timed-out", message: expect.stringMatching(/no longer waiting for approval: it timed out after 200 ms.*Nothing was changed/) });
    expect(result.toolCalls).toMatchObject([{ status: "refused", reason: "no approval within 200 ms" }]);
    expect(result.trace.filter((e) => e.type === "approval").map((e) => e.type === "approval" && e.outcome)).toEqual(["requested", "timed-out"]);

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
    expect(out.again).toMatchObject({ name: "ApprovalNotWaitingError", state: "rejected", message: expect.stringMatching(/it was already rejected by bob at \d{4}-/) });
    expect(out.result.toolCalls).toMatchObject([{ status: "refused", reason: "rejected by a person: not this week" }]);
    await model.close();
    await second.model.close();
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
        await handle.workflow.signal("decide", { callId: "call_swap", decision: "approve", by: "alice", note: "from the UI" });
        const result = await handle.result();
        await replaysAndKeeps(handle, "approval-decide-signal");
        return result;
      },
      { approvals: { canDecide: ({ by }) => by === "alice" } },
    );
    expect(result.trace.filter((e) => e.type === "approval")).toMatchObject([{ outcome: "requested" }, { outcome: "approved", by: "alice", note: "from the UI" }]);
    expect(result.toolCalls).toMatchObject([{ status: "ok" }]);
    await model.close();
  });

  it("agent.asTool({ needsApproval, approvalTimeout }) waits for approval before the sub-agent runs; the eval record carries the decision and the version", async () => {
    const model = await startScriptedModel([{ toolCalls: [{ id: "call_billing", name: "billing", arguments: { message: "Refund $42" } }] }, "I could not get that approved."]);
    const billing = ai.agent({ name: "billing", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const agent = define(model.baseURL, { tools: [billing.asTool({ needsApproval: true, approvalTimeout: "200 milliseconds" })] });
    const queue = taskQueue();
    const records: EvalRecord[] = [];
    const report = await serve(agent, queue, () =>
      agent.eval({ cases: [{ name: "refund", input: "Refund invoice 7" }], scorers: [{ name: "keep", score: (record) => (records.push(record), { pass: true }) }], client: harness.client, taskQueue: queue }),
    );
    const decision = { callId: "call_billing", tool: "billing", outcome: "timed-out", reason: "no approval within 200 ms" };
    expect(records).toMatchObject([{ agentVersion: agent.version, approvals: [decision], toolCalls: [{ name: "billing", status: "refused" }] }]);
    expect(report.agentVersion).toBe(agent.version);
    expect(report.runs).toMatchObject([{ agentVersion: agent.version, approvals: [decision] }]);
    // The sub-agent never ran: the model was asked twice, both times by the caller.
    expect(model.requests).toHaveLength(2);
    await model.close();
  });

  it("ai.mcp({ needsApproval, approvalTimeout }) refuses a call nobody approved in time, without calling the server", async () => {
    const http = await startHttpMcpServer();
    const gym = ai.mcp({ name: "gym", url: http.url, needsApproval: true, approvalTimeout: "200 milliseconds" });
    const model = await startScriptedModel([{ toolCalls: [{ id: "call_mcp", name: "lookup_exercise", arguments: { name: "lunges" } }] }, "Nobody approved it."]);
    const agent = ai.agent({ name: "mcp-approval", model: ai.openai("gpt-test", { baseURL: model.baseURL }), tools: [gym] });
    try {
      const queue = taskQueue();
      const result = await serve(agent, queue, () => agent.run("Look lunges up", { client: harness.client, taskQueue: queue }));
      expect(result.toolCalls).toMatchObject([{ name: "lookup_exercise", status: "refused", reason: "no approval within 200 ms", source: "mcp:gym" }]);
      expect(result.trace.filter((e) => e.type === "approval").map((e) => e.type === "approval" && e.outcome)).toEqual(["requested", "timed-out"]);
    } finally {
      await gym.close();
      await http.close();
      await model.close();
    }
  });
});
