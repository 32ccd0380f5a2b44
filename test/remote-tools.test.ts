/**
 * ai.activityTool and ai.workflowTool against a real Python worker: `temporalio` from PyPI in a venv
 * the set-up makes, running test/fixtures/python/order_worker.py on its own task queue. The agent's
 * calls run its activity and its workflow by name; answers, refusals and failures come back as
 * for any tool; a worker SIGKILLed after its side effect is retried without repeating it.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, AgentOptionsError, type RunHandle, type Tool, type TraceEvent } from "../src/index.js";
import { startScriptedModel, type ScriptedTurn } from "../src/testing/index.js";
import { conversationOf } from "../src/studio/server/conversation.js";
import { formatTrace } from "../src/cli/format-run.js";
import { connectHarness, taskQueue, withWorker, type Harness } from "./support/harness.js";
import { replaysAndKeeps } from "./support/history-helpers.js";
import { pythonWithTemporalio, startPythonWorker, type PythonWorker } from "./support/python-worker.js";

let harness: Harness;
let python: string;
beforeAll(async () => {
  harness = await connectHarness();
  const installed = await pythonWithTemporalio();
  python = installed.python;
  console.log(`Python worker: Python ${installed.version.replace(" ", ", temporalio ")}`);
}, 300_000);
afterAll(() => harness.close());

const orderId = z.object({ orderId: z.string() });

function orderAgent(baseURL: string, pyQueue: string, extraTools: Tool[] = []) {
  return ai.agent({
    name: "order-desk",
    model: ai.openai("gpt-test", { baseURL }),
    tools: [
      ai.activityTool({
        name: "lookup_order",
        description: "Looks an order up.",
        input: orderId,
        activity: "lookup_order",
        taskQueue: pyQueue,
        timeouts: { startToClose: "20 seconds" },
      }),
      ai.workflowTool({
        name: "check_stock",
        input: z.object({ sku: z.string() }),
        workflow: "check_stock",
        taskQueue: pyQueue,
        timeouts: { execution: "1 minute" },
      }),
      ...extraTools,
    ],
  });
}

const call = (name: string, id: string, args: Record<string, unknown>) => ({ name, id, arguments: args });
const remoteStarts = (trace: TraceEvent[]) =>
  trace.flatMap((e) => (e.type === "remote.started" ? [`${e.callId} ${e.target} ${e.name} ${e.taskQueue}`] : []));

/** Runs the script with the agent's worker and a Python worker on their own queues. */
async function withPython<T>(
  script: ScriptedTurn[],
  env: Record<string, string>,
  fn: (ctx: {
    start: (input: string) => Promise<RunHandle>;
    pyQueue: string;
    worker: () => PythonWorker;
    restart: (env: Record<string, string>) => Promise<void>;
    requests: () => Array<{ body: { messages: unknown[] } }>;
  }) => Promise<T>,
  extraTools: (pyQueue: string) => Tool[] = () => [],
): Promise<T> {
  const model = await startScriptedModel(script);
  const pyQueue = `py-${taskQueue()}`;
  let py = await startPythonWorker(python, harness.address, pyQueue, env);
  const agent = orderAgent(model.baseURL, pyQueue, extraTools(pyQueue));
  try {
    return await withWorker(harness, [agent], ({ taskQueue: queue }) =>
      fn({
        start: (input) => agent.start(input, { client: harness.client, taskQueue: queue }),
        pyQueue,
        worker: () => py,
        restart: async (next) => {
          await py.kill();
          py = await startPythonWorker(python, harness.address, pyQueue, next);
        },
        requests: () => model.requests,
      }),
    );
  } finally {
    await py.kill();
    await model.close();
  }
}

describe("ai.activityTool and ai.workflowTool with a Python worker", () => {
  it("the Python activity and workflow answer, refuse and fail as any tool; invalid input never reaches them; both get the key", async () => {
    const effects = mkdtempSync(join(tmpdir(), "order-effects-"));
    const script: ScriptedTurn[] = [
      {
        toolCalls: [
          call("lookup_order", "c1", { orderId: "7" }),
          call("lookup_order", "c2", { orderId: "missing" }),
          call("lookup_order", "c3", { orderId: "broken" }),
          call("lookup_order", "c4", { orderId: 7 }),
          call("check_stock", "c5", { sku: "A1" }),
          call("check_stock", "c6", { sku: "none" }),
          call("check_stock", "c7", { sku: "broken" }),
        ],
      },
      "Order 7 shipped; A1 is in stock.",
    ];
    await withPython(script, { ORDER_EFFECTS_DIR: effects }, async ({ start, pyQueue, requests }) => {
      const handle = await start("Where is order 7, and is A1 in stock?");
      const result = await handle.result();
      const key = (id: string) => `${result.workflowId}/trip-1/${id}`;
      expect(result.stopReason).toBe("answered");
      expect(result.toolCalls).toMatchObject([
        { id: "c1", status: "ok", output: { orderId: "7", status: "shipped", idempotencyKey: key("c1") } },
        { id: "c2", status: "refused", reason: "there is no order missing" },
        { id: "c3", status: "failed", error: "the order database is down" },
        { id: "c4", status: "refused", reason: expect.stringMatching(/^Invalid input for "lookup_order"/) },
        { id: "c5", status: "ok", output: { sku: "A1", inStock: 3, idempotencyKey: key("c5") } },
        { id: "c6", status: "refused", reason: "none is not a product we sell" },
        { id: "c7", status: "failed", error: "the stock service is down" },
      ]);
      // Every valid call was scheduled on the Python worker's queue (in the order their checks ended); the invalid one never left the agent's worker.
      expect(remoteStarts(result.trace).sort()).toEqual([
        `c1 activity lookup_order ${pyQueue}`,
        `c2 activity lookup_order ${pyQueue}`,
        `c3 activity lookup_order ${pyQueue}`,
        `c5 workflow check_stock ${pyQueue}`,
        `c6 workflow check_stock ${pyQueue}`,
        `c7 workflow check_stock ${pyQueue}`,
      ]);
      // The model saw each outcome as a tool message.
      const toolMessages = requests()[1]!.body.messages.filter((m) => (m as { role: string }).role === "tool");
      expect(toolMessages).toHaveLength(7);
      expect(JSON.stringify(toolMessages)).toContain("the stock service is down");
      await replaysAndKeeps(handle, "remote-tools", { keepWorkflowId: true });
    });
  }, 180_000);

  it("approved, then the Python worker SIGKILLed after its effect: the restarted worker retries, the run completes, one refund", async () => {
    const effects = mkdtempSync(join(tmpdir(), "order-effects-"));
    const refund = (pyQueue: string) =>
      ai.activityTool({
        name: "refund_order",
        input: z.object({ orderId: z.string(), amount: z.number() }),
        activity: "refund_order",
        taskQueue: pyQueue,
        needsApproval: true,
        timeouts: { startToClose: "1 minute", heartbeat: "1 second" },
        retry: { initialInterval: "100 milliseconds" },
      });
    const script: ScriptedTurn[] = [
      { toolCalls: [call("refund_order", "r1", { orderId: "7", amount: 42 })] },
      "Refunded.",
    ];
    await withPython(
      script,
      { ORDER_EFFECTS_DIR: effects, HOLD_AFTER_REFUND: "1" },
      async ({ start, worker, restart }) => {
        const handle = await start("Refund order 7");
        for await (const event of handle.stream())
          if (event.type === "approval" && event.outcome === "requested") break;
        await handle.approve("r1", { by: "ops" });
        const first = await worker().line(/^refunded attempt=1 /);
        await restart({ ORDER_EFFECTS_DIR: effects }); // SIGKILL while the activity holds after its effect
        const result = await handle.result();
        const key = `${result.workflowId}/trip-1/r1`;
        expect(first).toBe(`refunded attempt=1 key=${key}`);
        expect(await worker().line(/^refunded attempt=2 /)).toBe(`refunded attempt=2 key=${key}`);
        expect(result.toolCalls).toMatchObject([
          { id: "r1", status: "ok", output: { refunded: 42, idempotencyKey: key } },
        ]);
        expect(
          result.trace.filter((e) => e.type === "approval").map((e) => e.type === "approval" && e.outcome),
        ).toEqual(["requested", "approved"]);
        // Two attempts, one refund: the effect is keyed by the call's idempotency key.
        const refunds = readFileSync(join(effects, "refunds.log"), "utf8").trim().split("\n");
        expect(refunds.map((line) => JSON.parse(line))).toEqual([{ orderId: "7", amount: 42, idempotencyKey: key }]);
        await replaysAndKeeps(handle, "remote-tools-approval-crash", { keepWorkflowId: true });
      },
      (pyQueue) => [refund(pyQueue)],
    );
  }, 180_000);

  it("no worker on the queue: the run waits, its trace and details name the queue; scheduleToStart gives the model a failed call", async () => {
    const model = await startScriptedModel([
      { toolCalls: [call("lookup_order", "n1", { orderId: "7" })] },
      "The order service is not answering.",
    ]);
    const nowhere = `nobody-${taskQueue()}`;
    const agent = ai.agent({
      name: "order-desk",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [
        ai.activityTool({
          name: "lookup_order",
          input: orderId,
          activity: "lookup_order",
          taskQueue: nowhere,
          timeouts: { scheduleToStart: "3 seconds" },
        }),
      ],
    });
    try {
      await withWorker(harness, [agent], async ({ taskQueue: queue }) => {
        const handle = await agent.start("Where is order 7?", { client: harness.client, taskQueue: queue });
        let waiting: TraceEvent | undefined;
        for await (const event of handle.stream())
          if (event.type === "remote.started") {
            waiting = event;
            break;
          }
        expect(waiting).toMatchObject({ target: "activity", name: "lookup_order", taskQueue: nowhere });
        const { currentDetails } = await handle.workflow.query<{ currentDetails?: string }>(
          "__temporal_workflow_metadata",
        );
        expect(currentDetails).toContain(`tool lookup_order → activity lookup_order on task queue ${nowhere}`);
        const result = await handle.result();
        // The studio's conversation shows where the call ran.
        const items = conversationOf(result.workflowId, result.messages, result.toolCalls, result.trace, {
          model: new Map(),
          tools: new Map(),
        });
        expect(formatTrace(result.trace)).toContain(
          `trip 1   tool lookup_order (n1) → activity lookup_order on task queue ${nowhere}`,
        );
        expect(items.find((item) => item.type === "tool-call")).toMatchObject({
          runsOn: `activity lookup_order on task queue ${nowhere}`,
        });
        expect(result.stopReason).toBe("answered");
        expect(result.toolCalls).toMatchObject([
          {
            id: "n1",
            status: "failed",
            error: `No worker took the activity lookup_order on task queue ${nowhere} within timeouts.scheduleToStart (3 seconds).`,
          },
        ]);
      });
    } finally {
      await model.close();
    }
  }, 120_000);
});

describe("ai.activityTool / ai.workflowTool options", () => {
  const input = z.object({});
  it.each([
    [{ name: "t", input, activity: "a" }, "taskQueue", /needs the task queue its workers poll/],
    [{ name: "t", input, activity: "", taskQueue: "q" }, "activity", /needs the activity's type name/],
    [
      { name: "t", input, activity: "a", taskQueue: "q", timeouts: { scheduleToStart: "soon" } },
      "timeouts.scheduleToStart",
      /must be a positive duration/,
    ],
    [
      { name: "t", input, activity: "a", taskQueue: "q", timeouts: { startToclose: "1s" } },
      "timeouts.startToclose",
      /did you mean `startToClose`/,
    ],
    [{ name: "t", input, activity: "a", taskQueue: "q", taskqueue: "q" }, "taskqueue", /did you mean `taskQueue`/],
  ])("activityTool %#: a typed error names %s", (options, field, message) => {
    const error = (() => {
      try {
        ai.activityTool(options as never);
      } catch (e) {
        return e;
      }
    })();
    expect(AgentOptionsError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ field, message: expect.stringMatching(message) });
  });

  it("workflowTool needs the workflow's type name", () => {
    expect(() => ai.workflowTool({ name: "t", input, workflow: " ", taskQueue: "q" })).toThrow(
      /ai.workflowTool\(\) "t" needs the workflow's type name/,
    );
  });
});
