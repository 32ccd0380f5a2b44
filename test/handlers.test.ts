/**
 * A run answers its queries and updates from its first moment: every handler is registered before
 * the workflow's first `await`, and answers sensibly while the run is still setting up.
 *
 * Two ways of holding the setup open: an MCP toolset (official SDK) whose `tools/list` waits until
 * the test lets it go (the window users meet), and a test-only workflow interceptor that holds the
 * `agent.describe` local activity, the very first `await` (and the start of a handoff).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { WorkflowNotFoundError, WorkflowUpdateStage } from "@temporalio/client";
import { historyFromJSON, historyToJSON } from "@temporalio/common/lib/proto-utils.js";
import { bundleWorkflowCode, Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import {
  ai,
  ApprovalError,
  UnknownApprovalError,
  type Agent,
  type PendingApproval,
  type RunHandle,
  type StreamedRunEvent,
} from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { quietBundlerLogger, workflowsPath } from "../src/workflow-bundle.js";
import { startHeldListServer, type HeldListServer } from "./fixtures/mcp/held-list-server.js";
import { connectHarness, taskQueue, testWorker, withWorker, type Harness } from "./support/harness.js";
import { ask, byAgent, testAgent } from "./support/subagent-helpers.js";

const FIXTURES = new URL("./fixtures/histories/", import.meta.url);

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

/** The handler names a live run reports (`__temporal_workflow_metadata`), without the test interceptor's own. */
async function registeredHandlers(handle: RunHandle): Promise<string[]> {
  type Definition = { name?: string };
  const { definition } = await handle.workflow.query<{
    definition: { queryDefinitions?: Definition[]; signalDefinitions?: Definition[]; updateDefinitions?: Definition[] };
  }>("__temporal_workflow_metadata");
  const names = [definition.queryDefinitions, definition.signalDefinitions, definition.updateDefinitions].flatMap(
    (list) => (list ?? []).map((d) => d.name!),
  );
  return names.filter((name) => !name.startsWith("test.")).sort();
}

/** Every handler name the workflow code defines (defineQuery / defineUpdate / defineSignal in the workflow code: src/workflows, src/core and src/contract). */
function definedHandlers(): string[] {
  const names: string[] = [];
  for (const dir of ["../src/workflows/", "../src/core/", "../src/contract/"]) {
    const url = new URL(dir, import.meta.url);
    for (const file of readdirSync(url).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))) {
      const text = readFileSync(new URL(file, url), "utf8");
      const calls = text.match(/\bdefine(?:Query|Update|Signal)\s*[<(]/g) ?? [];
      const named = [...text.matchAll(/\bdefine(?:Query|Update|Signal)\s*(?:<[^;]*?>)?\s*\(\s*"([^"]+)"/g)].map(
        (m) => m[1]!,
      );
      // A handler whose name this check cannot read would escape it.
      expect(named, `${dir}${file}: name each handler with a string literal`).toHaveLength(calls.length);
      names.push(...named);
    }
  }
  return names.sort();
}

/** What every held run answers: no pending approvals, the trace so far, and approve/reject of a call not waiting fail with the clear error. */
async function expectSetupAnswers(handle: RunHandle, options: { trace?: unknown[] } = {}): Promise<void> {
  expect(await handle.pendingApprovals()).toEqual([]);
  expect(await handle.trace()).toEqual(options.trace ?? []);
  for (const decide of [() => handle.approve("call_early"), () => handle.reject("call_early", "too soon")]) {
    const error = await decide().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UnknownApprovalError);
    expect(ApprovalError.isInstance(error)).toBe(true); // a subclass of ApprovalError, which this case threw before it had a class
    expect(error).toMatchObject({
      name: "UnknownApprovalError",
      callId: "call_early",
      waiting: [],
      message: expect.stringContaining('No tool call "call_early" is waiting for approval (waiting: none)'),
    });
  }
}

/** Polls `pendingApprovals()` right from the start, as a user would, until a call waits. */
async function firstPendingApproval(handle: RunHandle): Promise<PendingApproval> {
  for (;;) {
    const [first] = await handle.pendingApprovals();
    if (first) return first;
  }
}

/** Until the workflow exists (a session is started by its first send, update-with-start). */
async function untilStarted(handle: RunHandle): Promise<void> {
  for (;;) {
    try {
      await handle.workflow.describe();
      return;
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
}

async function collect(handle: RunHandle): Promise<StreamedRunEvent[]> {
  const events: StreamedRunEvent[] = [];
  for await (const event of handle.stream({ subAgents: false })) events.push(event);
  return events;
}

async function replay(histories: Array<{ workflowId: string; history: unknown }>): Promise<string[]> {
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories(
    { workflowBundle: { codePath: inject("workflowBundlePath") }, replayName: "durable-agent-replay" },
    histories.map(({ workflowId, history }) => ({ workflowId, history: historyFromJSON(history) })),
  )) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  return failures;
}

/** Writes the history as a committed fixture when RECORD_FIXTURES is set. */
function keepFixture(name: string, history: unknown): void {
  if (process.env.RECORD_FIXTURES)
    writeFileSync(new URL(`${name}.json`, FIXTURES), JSON.stringify(history, null, 1) + "\n");
}

/** Runs the checks once the server holds the run's listing, then lets it go (also when a check fails, so the worker can stop). */
async function whileHeld<T>(server: HeldListServer, checks: () => Promise<T>): Promise<T> {
  try {
    await server.listRequested;
    return await checks();
  } finally {
    server.release();
  }
}

/** The run's setup is really held: its `mcp.list` activity is in flight (and nothing else is). */
async function expectHeldInMcpList(handle: RunHandle): Promise<void> {
  const { raw } = await handle.workflow.describe();
  expect(raw.pendingActivities?.map((a) => a.activityType?.name)).toEqual(["mcp.list"]);
}

describe("handlers from the first moment", () => {
  it("pendingApprovals() and approve() sent straight after start(), before a worker has taken the run's first task, answer [] and the clear error", async () => {
    const model = await startScriptedModel(["Nothing to approve."]);
    const agent = ai.agent({ name: "first-moment", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const queue = taskQueue();
    try {
      const handle = await agent.start("Hello", { client: harness.client, taskQueue: queue });
      // Asked before any worker polls the queue: the server hands them to the worker that takes the run's first task.
      const pending = handle.pendingApprovals();
      const approved = handle.approve("call_early").then(
        () => undefined,
        (e: unknown) => e,
      );
      const worker = await testWorker(harness, [agent], { taskQueue: queue });
      const result = await worker.runUntil(async () => {
        expect(await pending).toEqual([]);
        expect(await approved).toMatchObject({
          name: "UnknownApprovalError",
          callId: "call_early",
          message: expect.stringContaining('No tool call "call_early" is waiting for approval'),
        });
        return handle.result();
      });
      expect(result).toMatchObject({ stopReason: "answered", reply: "Nothing to approve." });
    } finally {
      await model.close();
    }
  });
});

describe("handlers while an MCP listing holds the setup open", () => {
  it("agentRun: queries, approve/reject and the stream answer during setup; the run then asks for approval and finishes", async () => {
    const server = await startHeldListServer();
    const model = await startScriptedModel([
      { toolCalls: [{ name: "refund", arguments: { amount: 42 } }] },
      "Refunded.",
    ]);
    const refunds = ai.mcp({ name: "refunds", url: server.url, needsApproval: true });
    const agent = ai.agent({
      name: "held-run",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [refunds],
    });
    try {
      const { result, events, history } = await withWorker(harness, [agent], async ({ taskQueue }) => {
        const handle = await agent.start("Refund $42", {
          client: harness.client,
          taskQueue,
          context: { user: "u-1" },
          workflowId: `held-run-${Date.now()}`,
        });
        const { events, poll } = await whileHeld(server, async () => {
          await expectHeldInMcpList(handle);
          await expectSetupAnswers(handle);
          expect(await handle.workflow.query("run-context")).toEqual({ user: "u-1" });
          expect(await handle.workflow.query("mcp-tools")).toEqual([]);
          // A decision for a call that does not wait is ignored, not an error of the run.
          await handle.workflow.signal("approval.decide", "call_early", { approved: true });
          const events = collect(handle); // subscribes (polls) during setup
          // A stream poll taken (accepted) during setup: it answers with the run's first events.
          const poll = await handle.workflow.startUpdate<
            { items: unknown[] },
            [{ topics: string[]; from_offset: number }]
          >("__temporal_workflow_stream_poll", {
            args: [{ topics: ["run-events"], from_offset: 0 }],
            waitForStage: WorkflowUpdateStage.ACCEPTED,
          });
          await expectHeldInMcpList(handle);
          return { events, poll };
        });
        expect((await poll.result()).items.length).toBeGreaterThan(0);
        const waiting = await firstPendingApproval(handle);
        expect(waiting).toMatchObject({ tool: "refund", input: { amount: 42 }, agent: "held-run" });
        await handle.approve(waiting.callId);
        const result = await handle.result();
        return {
          result,
          events: await events,
          history: JSON.parse(historyToJSON(await handle.workflow.fetchHistory())),
        };
      });
      expect(result).toMatchObject({
        stopReason: "answered",
        reply: "Refunded.",
        toolCalls: [{ name: "refund", status: "ok" }],
      });
      expect(server.calls).toEqual([{ amount: 42 }]);
      expect(events.map((e) => e.type)).toContain("approval");
      expect(events.at(-1)?.type).toBe("run.finished");
      // The run recorded with handlers registered from the start (a signal and stream polls during setup) replays.
      expect(await replay([{ workflowId: "setup-window-run", history }])).toEqual([]);
      keepFixture("setup-window-run", history);
    } finally {
      await refunds.close();
      await server.close();
      await model.close();
    }
  });

  it("agentSession: queries and approve/reject answer during setup; the queued send then asks for approval and is answered", async () => {
    const server = await startHeldListServer();
    const model = await startScriptedModel([
      { toolCalls: [{ name: "refund", arguments: { amount: 7 } }] },
      "Refunded 7.",
    ]);
    const refunds = ai.mcp({ name: "refunds", url: server.url, needsApproval: true });
    const agent = ai.agent({
      name: "held-session",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [refunds],
    });
    try {
      const { reply, history } = await withWorker(harness, [agent], async ({ taskQueue }) => {
        const session = agent.session(`s-${Date.now()}`, { client: harness.client, taskQueue });
        const reply = session.send("Refund $7");
        const handle = await ai.getRun(session.workflowId, { client: harness.client });
        await whileHeld(server, async () => {
          await expectHeldInMcpList(handle);
          await expectSetupAnswers(handle);
        });
        const waiting = await firstPendingApproval(handle);
        expect(waiting).toMatchObject({ tool: "refund", input: { amount: 7 } });
        await handle.approve(waiting.callId);
        const answered = await reply;
        await session.end();
        return { reply: answered, history: JSON.parse(historyToJSON(await handle.workflow.fetchHistory())) };
      });
      expect(reply).toMatchObject({
        stopReason: "answered",
        reply: "Refunded 7.",
        toolCalls: [{ name: "refund", status: "ok" }],
      });
      expect(server.calls).toEqual([{ amount: 7 }]);
      expect(await replay([{ workflowId: "setup-window-session", history }])).toEqual([]);
      keepFixture("setup-window-session", history);
    } finally {
      await refunds.close();
      await server.close();
      await model.close();
    }
  });

  it("a sub-agent's child run answers during its setup, and so does its caller; the child's approval then reaches the caller", async () => {
    const server = await startHeldListServer();
    const model = await startScriptedModel(
      byAgent({
        triage: [{ toolCalls: [ask("billing", "Refund $5")] }, "Refunded."],
        billing: [{ toolCalls: [{ name: "refund", arguments: { amount: 5 } }] }, "Done."],
      }),
    );
    const refunds = ai.mcp({ name: "refunds", url: server.url, needsApproval: true });
    const root = testAgent("triage", model.baseURL, {
      tools: [testAgent("billing", model.baseURL, { tools: [refunds] }).asTool()],
    });
    try {
      const result = await withWorker(harness, [root], async ({ taskQueue }) => {
        const handle = await root.start("Help me", { client: harness.client, taskQueue });
        const child = await whileHeld(server, async () => {
          const started = (await handle.trace()).find((e) => e.type === "subagent.started");
          expect(started).toMatchObject({ agent: "billing" });
          const child = await ai.getRun((started as { workflowId: string }).workflowId, { client: harness.client });
          await expectHeldInMcpList(child);
          await expectSetupAnswers(child);
          // The caller is past its own setup, waiting on the child: nothing of the tree waits for approval yet.
          await expectSetupAnswers(handle, { trace: await handle.trace() });
          return child;
        });
        const waiting = await firstPendingApproval(handle);
        expect(waiting).toMatchObject({ tool: "refund", agents: ["triage", "billing"], workflowId: child.workflowId });
        await handle.approve(waiting.callId);
        return handle.result();
      });
      expect(result).toMatchObject({
        stopReason: "answered",
        reply: "Refunded.",
        toolCalls: [{ name: "billing", status: "ok", output: "Done." }],
      });
      expect(server.calls).toEqual([{ amount: 5 }]);
    } finally {
      await refunds.close();
      await server.close();
      await model.close();
    }
  });
});

describe("every handler is registered before the first await (setup held at agent.describe)", () => {
  const INTERCEPTOR = fileURLToPath(new URL("./fixtures/workflows/hold-describe-interceptor.ts", import.meta.url));
  let code: string;
  beforeAll(async () => {
    ({ code } = await bundleWorkflowCode({
      workflowsPath: workflowsPath(),
      workflowInterceptorModules: [INTERCEPTOR],
      logger: quietBundlerLogger,
    }));
  });

  const held = (handle: RunHandle, n: number) => handle.workflow.executeUpdate("test.describe-held", { args: [n] });
  const release = (handle: RunHandle) => handle.workflow.signal("test.release-describe");
  const refund = ai.tool({
    name: "refund",
    input: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: async ({ amount }) => ({ refunded: amount }),
  });

  /** At the hold: the handlers the run offers; it answers as a run that has not started. */
  async function atFirstAwait(handle: RunHandle): Promise<string[]> {
    await held(handle, 1);
    const names = await registeredHandlers(handle);
    await expectSetupAnswers(handle);
    expect(await handle.workflow.query("run-page", "toolCalls", 0)).toMatchObject({ items: [], total: 0 });
    return names;
  }

  it("every handler the workflow code defines is registered before the first await of agentRun or agentSession", async () => {
    const agent = ai.agent({
      name: "first-await-both",
      model: ai.openai("gpt-test", { baseURL: "http://127.0.0.1:9/v1" }),
      tools: [refund],
    });
    const names = await withWorker(
      harness,
      [agent],
      async ({ taskQueue }) => {
        const run = await agent.start("Refund $1", { client: harness.client, taskQueue });
        const session = agent.session(`s-${Date.now()}`, { client: harness.client, taskQueue });
        const sent = session.send("Refund $1").catch((error: unknown) => error);
        const sessionRun = await ai.getRun(session.workflowId, { client: harness.client });
        await untilStarted(sessionRun);
        const names = [...(await atFirstAwait(run)), ...(await atFirstAwait(sessionRun))];
        await Promise.all([run.workflow.terminate("checked"), sessionRun.workflow.terminate("checked")]);
        await sent;
        return names;
      },
      { workflowBundle: { code } },
    );
    const defined = definedHandlers();
    expect(defined).toEqual(expect.arrayContaining(["approve", "pending-approvals", "reject", "send", "trace"]));
    expect(new Set(names)).toEqual(new Set([...names, ...defined]));
  });

  it("agentRun: at its first await it has all its handlers (the same set as later, waiting for approval)", async () => {
    const model = await startScriptedModel([
      { toolCalls: [{ name: "refund", arguments: { amount: 3 } }] },
      "Refunded.",
    ]);
    const agent = ai.agent({
      name: "first-await-run",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [refund],
    });
    try {
      const result = await withWorker(
        harness,
        [agent],
        async ({ taskQueue }) => {
          const handle = await agent.start("Refund $3", { client: harness.client, taskQueue });
          const early = await atFirstAwait(handle);
          await release(handle);
          const waiting = await firstPendingApproval(handle);
          // No handler was added after the first await.
          expect(await registeredHandlers(handle)).toEqual(early);
          await handle.approve(waiting.callId);
          return handle.result();
        },
        { workflowBundle: { code } },
      );
      expect(result).toMatchObject({
        stopReason: "answered",
        toolCalls: [{ name: "refund", status: "ok", output: { refunded: 3 } }],
      });
    } finally {
      await model.close();
    }
  });

  it("agentSession: at its first await it has all its handlers, a send is queued, and none is added later", async () => {
    const model = await startScriptedModel([
      { toolCalls: [{ name: "refund", arguments: { amount: 4 } }] },
      "Refunded 4.",
    ]);
    const agent = ai.agent({
      name: "first-await-session",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [refund],
    });
    try {
      const reply = await withWorker(
        harness,
        [agent],
        async ({ taskQueue }) => {
          const session = agent.session(`s-${Date.now()}`, { client: harness.client, taskQueue });
          const reply = session.send("Refund $4");
          const handle = await ai.getRun(session.workflowId, { client: harness.client });
          await untilStarted(handle);
          const early = await atFirstAwait(handle);
          await release(handle);
          const waiting = await firstPendingApproval(handle);
          expect(await registeredHandlers(handle)).toEqual(early);
          await handle.approve(waiting.callId);
          const answered = await reply;
          await session.end();
          return answered;
        },
        { workflowBundle: { code } },
      );
      expect(reply).toMatchObject({
        stopReason: "answered",
        reply: "Refunded 4.",
        toolCalls: [{ name: "refund", status: "ok" }],
      });
    } finally {
      await model.close();
    }
  });

  it("a handoff: while the next agent is looked up, the run answers as before and approvals still work after", async () => {
    const model = await startScriptedModel(
      byAgent({
        front: [{ toolCalls: [{ name: "transfer_to_closer", arguments: {} }] }],
        closer: [{ toolCalls: [{ name: "refund", arguments: { amount: 9 } }] }, "Closed."],
      }),
    );
    const closer: Agent = testAgent("closer", model.baseURL, { tools: [refund] });
    const front = testAgent("front", model.baseURL, { handoffs: [closer] });
    try {
      const result = await withWorker(
        harness,
        [front],
        async ({ taskQueue }) => {
          const handle = await front.start("Close my account", { client: harness.client, taskQueue });
          const early = await atFirstAwait(handle);
          await release(handle);
          await held(handle, 2); // the handoff's lookup of "closer"
          expect(await registeredHandlers(handle)).toEqual(early);
          expect(await handle.pendingApprovals()).toEqual([]);
          expect((await handle.trace()).map((e) => e.type)).not.toContain("handoff");
          await release(handle);
          const waiting = await firstPendingApproval(handle);
          expect(waiting).toMatchObject({ tool: "refund", agent: "closer" });
          await handle.approve(waiting.callId);
          return handle.result();
        },
        { workflowBundle: { code }, taskQueue: taskQueue() },
      );
      expect(result).toMatchObject({ stopReason: "answered", agent: "closer", reply: "Closed." });
    } finally {
      await model.close();
    }
  });
});
