/**
 * `durable-agent/workflow` in a user's own project: their workflows (test/fixtures/user-workflows)
 * import it and run agents as steps; their worker bundles them with Temporal's own bundler
 * (`Worker.create({ workflowsPath })`) from the package as installed (its package.json exports and
 * the entry compiled by tsc), with nothing of ours in between. The agents run on the agents' worker.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { WorkflowFailedError } from "@temporalio/client";
import { CancelledFailure } from "@temporalio/common";
import { Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type RunResult } from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { connectHarness, taskQueue, withWorker, type Harness } from "./support/harness.js";
import { byAgent, testAgent } from "./support/subagent-helpers.js";
import { replaysAndKeeps } from "./support/history-helpers.js";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const TSC = join(REPO, "node_modules", "typescript", "bin", "tsc");
const run = promisify(execFile);

/**
 * A user's project: src/workflows.ts, and node_modules holding @temporalio (the repository's) and
 * durable-agent as installed: package.json and the `./workflow` entry built by tsc into dist/.
 */
async function userProject(): Promise<string> {
  const project = mkdtempSync(join(tmpdir(), "user-workflows-"));
  const pkg = join(project, "node_modules", "durable-agent");
  mkdirSync(join(project, "src"), { recursive: true });
  mkdirSync(pkg, { recursive: true });
  symlinkSync(realpathSync(join(REPO, "node_modules", "@temporalio")), join(project, "node_modules", "@temporalio"));
  copyFileSync(join(REPO, "package.json"), join(pkg, "package.json"));
  const build = join(project, "tsconfig.entry.json");
  writeFileSync(
    build,
    JSON.stringify({
      extends: join(REPO, "tsconfig.build.json"),
      compilerOptions: { outDir: join(pkg, "dist"), rootDir: join(REPO, "src"), sourceMap: false, types: [] },
      include: [],
      files: [join(REPO, "src", "workflow-entry", "index.ts")],
    }),
  );
  await run(process.execPath, [TSC, "-p", build]);
  copyFileSync(new URL("fixtures/user-workflows/workflows.ts", import.meta.url), join(project, "src", "workflows.ts"));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "user-app", type: "module", private: true }));
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
      },
      include: ["src"],
    }),
  );
  return project;
}

let harness: Harness;
let project: string;
beforeAll(async () => {
  [harness, project] = await Promise.all([connectHarness(), userProject()]);
}, 180_000);
afterAll(() => harness?.close());

/** The scripted model's turn that holds the slow agent's answer until the request is cut, and says when it came. */
function slowTurn() {
  let reached!: () => void;
  const called = new Promise<void>((resolve) => (reached = resolve));
  const turn = async (request: { closed: Promise<void> }) => {
    reached();
    await request.closed;
    return "never";
  };
  return { turn, called };
}

describe("durable-agent/workflow in the user's own workflow, bundled by the user's worker", () => {
  it("typechecks in the user's project: the output and context of agentRef are typed from the built entry's types", async () => {
    await expect(run(process.execPath, [TSC, "-p", join(project, "tsconfig.json")])).resolves.toBeDefined();
  }, 120_000);

  // runAgent as a step with typed output; startAgent approving; maxTrips; an unknown agent; a bad option; cancellation.
  it("runAgent and startAgent in the user's workflows, on the agents' worker, with every outcome", async () => {
    const slow = slowTurn();
    const model = await startScriptedModel(
      byAgent({
        "order-agent": ['{"action":"refund","reason":"the box was crushed"}'],
        "refund-agent": [
          { toolCalls: [{ name: "refund", id: "r1", arguments: { orderId: "7" } }] },
          "Refunded order 7.",
        ],
        "slow-agent": [slow.turn],
        "loop-agent": [{ toolCalls: [{ name: "noop", arguments: {} }] }, "Unreached."],
      }),
    );
    const refunded: unknown[] = [];
    const agents = [
      testAgent("order-agent", model.baseURL, {
        output: z.object({ action: z.enum(["refund", "reship"]), reason: z.string() }),
      }),
      testAgent("refund-agent", model.baseURL, {
        tools: [
          ai.tool({
            name: "refund",
            input: z.object({ orderId: z.string() }),
            needsApproval: true,
            execute: async (input) => (refunded.push(input), { ok: true }),
          }),
        ],
      }),
      testAgent("slow-agent", model.baseURL),
      testAgent("loop-agent", model.baseURL, {
        tools: [ai.tool({ name: "noop", input: z.object({}), execute: () => ({ ok: true }) })],
      }),
    ];
    const userQueue = taskQueue();
    // The user's worker: their workflows file, bundled by Temporal's bundler.
    const userWorker = await Worker.create({
      connection: harness.connection,
      taskQueue: userQueue,
      workflowsPath: join(project, "src", "workflows.ts"),
    });
    try {
      await withWorker(harness, agents, ({ taskQueue: agentQueue }) =>
        userWorker.runUntil(async () => {
          const start = (workflow: string) =>
            harness.client.workflow.start(workflow, {
              taskQueue: userQueue,
              workflowId: `${workflow}-${userQueue}`,
              args: [agentQueue],
            });
          // runAgent as a step, with the typed output.
          const order = await harness.client.workflow.execute("orderWorkflow", {
            taskQueue: userQueue,
            workflowId: `order-${userQueue}`,
            args: ["7", agentQueue],
          });
          expect(order).toBe("refund 7: the box was crushed");
          const child = await harness.client.workflow
            .getHandle<() => Promise<RunResult>>(`order-${userQueue}-agent`)
            .describe();
          expect(child.type).toBe("agentRun");
          expect(child.raw.workflowExecutionInfo?.parentExecution?.workflowId).toBe(`order-${userQueue}`);

          // startAgent: the parent approves the agent's call that needs approval.
          const approving = await (await start("approvingWorkflow")).result();
          expect(approving).toEqual({
            agentWorkflowId: expect.stringMatching(/^refund-agent-/),
            approved: "refund r1",
            pendingAfter: 0,
            reply: "Refunded order 7.",
            calls: ["refund ok"],
          });
          expect(refunded).toEqual([{ orderId: "7" }]);
          // The agent's run as a child of a user's workflow, approved by its decide signal, replays (and is kept as a fixture).
          const keep = (workflowId: string, fixture: string) =>
            replaysAndKeeps({ workflow: harness.client.workflow.getHandle(workflowId) }, fixture, {
              keepWorkflowId: true,
            });
          await keep(approving.agentWorkflowId, "workflow-entry-approval");

          // An agent no worker has: the parent sees ChildWorkflowFailure with the library's error as its cause.
          const unknown = await (await start("unknownAgentWorkflow")).result();
          expect(unknown).toMatchObject({ failed: true, workflowType: "agentRun", causeType: "UnknownAgentError" });
          expect(unknown.message).toMatch(/^No agent named "nobody" is registered on this worker/);

          // A run's own maxTrips (the agent's is 10); a bad one fails the calling workflow with a typed error naming it.
          expect(await (await start("oneTripWorkflow")).result()).toBe("max-trips after 1 tool call(s)");
          await keep(`oneTripWorkflow-${userQueue}-agent`, "workflow-entry-max-trips");
          const bad = await (await start("badOptionWorkflow")).result().catch((error: unknown) => error);
          expect((bad as WorkflowFailedError).cause).toMatchObject({
            type: "AgentOptionsError",
            message: "Invalid option `maxTrips` of runAgent: it is a whole number of at least 1 (got 0)",
          });

          // Cancelling the parent cancels the agent's run, which ends as a cancelled run does.
          const parent = await start("slowAgentWorkflow");
          await slow.called;
          await parent.cancel();
          const failure = await parent.result().then(
            () => undefined,
            (error: unknown) => error,
          );
          expect(failure).toBeInstanceOf(WorkflowFailedError);
          expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
          const agentRun = await harness.client.workflow
            .getHandle<() => Promise<RunResult>>(`slowAgentWorkflow-${userQueue}-agent`)
            .result();
          expect(agentRun.stopReason).toBe("cancelled");
        }),
      );
    } finally {
      await model.close();
    }
  }, 240_000);
});
