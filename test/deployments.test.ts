/**
 * Issue 24, item 2: Worker Deployments on a real dev server. Two real workers of two builds (A
 * and B) with different agent definitions: a pinned run that waits for approval stays on A after B
 * becomes current while new runs go to B; a session moves to B when it continues as new; an
 * auto-upgrade run that waits moves to B at its next workflow task; each result's agentVersion
 * shows which build answered. And the mapping of `deployment` onto the SDK's options.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ai,
  AgentOptionsError,
  type Agent,
  type RunHandle,
  type TraceEvent,
  type WorkerDeployment,
} from "../src/index.js";
import { workerDeploymentOptionsOf } from "../src/deployments/index.js";
import { startScriptedModel, type ScriptedRequest, type ScriptedTurn } from "../src/testing/index.js";
import { cli } from "./support/cli-helpers.js";
import { replaysAndKeeps } from "./support/history-helpers.js";
import { connectHarness, taskQueue, testWorker, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

/** The model: asks for update_plan when told to swap, else answers with the build its instructions name. */
function answer({ body }: ScriptedRequest): ScriptedTurn {
  const system = String(body.messages[0]?.content ?? "");
  const last = body.messages.at(-1)!;
  if (last.role === "user" && /swap/i.test(String(last.content)))
    return { toolCalls: [{ id: "call_swap", name: "update_plan", arguments: { from: "squats", to: "lunges" } }] };
  return `Answered by ${system}`;
}

const updatePlan = ai.tool({
  name: "update_plan",
  input: z.object({ from: z.string(), to: z.string() }),
  needsApproval: true,
  execute: async () => ({ ok: true }),
});
const build = (baseURL: string, instructions: string): Agent =>
  ai.agent({ name: "deployed-coach", model: ai.openai("gpt-test", { baseURL }), instructions, tools: [updatePlan] });

/** A scripted model, a fresh deployment and task queue, and a worker for each of builds A and B (different instructions), not yet running. */
async function twoBuilds(behavior: "pinned" | "auto-upgrade") {
  const model = await startScriptedModel(answer);
  const name = `coach-${randomUUID().slice(0, 8)}`;
  const queue = taskQueue();
  const buildA = build(model.baseURL, "build A.");
  const buildB = build(model.baseURL, "build B.");
  const workerA = await testWorker(harness, [buildA], {
    taskQueue: queue,
    deployment: { name, buildId: "A", behavior },
  });
  const workerB = await testWorker(harness, [buildB], {
    taskQueue: queue,
    deployment: { name, buildId: "B", behavior },
  });
  return { model, name, queue, buildA, buildB, client: harness.client, workerA, workerB };
}

/** Retries a call the server refuses until a worker of the build has polled (a deployment version exists once it has). */
async function untilAccepted<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function approvalRequested(handle: RunHandle): Promise<void> {
  for await (const event of handle.stream()) if (event.type === "approval" && event.outcome === "requested") return;
}

describe("deployment: the worker's options", () => {
  it('maps { name, buildId, behavior } onto workerDeploymentOptions: "pinned" (the default) → PINNED, "auto-upgrade" → AUTO_UPGRADE', () => {
    const version = { deploymentName: "coach", buildId: "2026-12-01.1" };
    expect(workerDeploymentOptionsOf({ name: "coach", buildId: "2026-12-01.1" })).toEqual({
      version,
      useWorkerVersioning: true,
      defaultVersioningBehavior: "PINNED",
    });
    expect(workerDeploymentOptionsOf({ name: "coach", buildId: "2026-12-01.1", behavior: "pinned" })).toEqual({
      version,
      useWorkerVersioning: true,
      defaultVersioningBehavior: "PINNED",
    });
    expect(workerDeploymentOptionsOf({ name: "coach", buildId: "2026-12-01.1", behavior: "auto-upgrade" })).toEqual({
      version,
      useWorkerVersioning: true,
      defaultVersioningBehavior: "AUTO_UPGRADE",
    });
    expect(workerDeploymentOptionsOf({ name: "a_b-c.d", buildId: "x".repeat(255) }).version).toEqual({
      deploymentName: "a_b-c.d",
      buildId: "x".repeat(255),
    });
  });

  it("names the bad field with AgentOptionsError", () => {
    const bad = (deployment: unknown) => {
      try {
        workerDeploymentOptionsOf(deployment as WorkerDeployment);
      } catch (error) {
        if (AgentOptionsError.isInstance(error)) return { field: error.field, message: error.message };
        throw error;
      }
      throw new Error(`accepted ${JSON.stringify(deployment)}`);
    };
    expect(bad(null)).toEqual({
      field: "deployment",
      message: 'Invalid option `deployment`: must be { name, buildId, behavior?: "pinned" | "auto-upgrade" }',
    });
    expect(bad("coach")).toMatchObject({ field: "deployment" });
    expect(bad({ buildId: "A" })).toEqual({
      field: "deployment.name",
      message: 'Invalid option `deployment.name`: must be 1-255 letters, digits, "_", "-" or "." (got undefined)',
    });
    expect(bad({ name: "", buildId: "A" })).toMatchObject({
      field: "deployment.name",
      message: expect.stringContaining('(got "")'),
    });
    expect(bad({ name: "coach" })).toMatchObject({ field: "deployment.buildId" });
    expect(bad({ name: "coach", buildId: "build 7" })).toMatchObject({
      field: "deployment.buildId",
      message: expect.stringContaining('(got "build 7")'),
    });
    expect(bad({ name: "coach", buildId: "x".repeat(256) })).toMatchObject({ field: "deployment.buildId" });
    expect(bad({ name: "coach", buildId: 7 })).toMatchObject({
      field: "deployment.buildId",
      message: expect.stringContaining("(got 7)"),
    });
    expect(bad({ name: "coach", buildId: "A", behavior: "sticky" })).toEqual({
      field: "deployment.behavior",
      message: 'Invalid option `deployment.behavior`: must be "pinned" or "auto-upgrade" (got "sticky")',
    });
    expect(bad({ name: "coach", buildId: "A", behavior: "AUTO_UPGRADE" })).toMatchObject({
      field: "deployment.behavior",
    });
  });
});

describe("worker deployments", () => {
  it("a pinned run waiting for approval stays on build A after B becomes current; new runs go to B; a session moves to B at continue-as-new", async () => {
    const { model, name, queue, buildA, buildB, client, workerA, workerB } = await twoBuilds("pinned");
    const runningA = workerA.run();
    let runningB: Promise<void> | undefined;
    try {
      // t0: A is current. A run asks for approval and waits; a session answers its first message.
      await untilAccepted(() => ai.deployment.setCurrent(name, "A", { client }));
      const pinned = await buildA.start("Swap squats for lunges", { client, taskQueue: queue });
      await approvalRequested(pinned);
      const session = buildA.session(`s-${randomUUID().slice(0, 8)}`, { client, taskQueue: queue });
      const first = await session.send("Hi");
      expect(first).toMatchObject({ reply: "Answered by build A.", agentVersion: buildA.version });

      // t1: B starts and becomes current (through the CLI).
      runningB = workerB.run();
      const switched = await untilAccepted(async () => {
        const exit = await cli(["deployment", "set-current", name, "B"]);
        if (exit.code !== 0) throw new Error(exit.stderr);
        return exit;
      });
      expect(switched.stdout).toContain(`Deployment ${name}: build B is current.`);

      // t2: a new run goes to B.
      const fresh = await buildB.run("Hello", { client, taskQueue: queue });
      expect(fresh).toMatchObject({ reply: "Answered by build B.", agentVersion: buildB.version });

      // t3: describe: two builds, B current, A still has the pinned run and the session open.
      const described = await ai.deployment.describe(name, { client });
      expect(described.currentBuildId).toBe("B");
      expect(described.builds.map((b) => [b.buildId, b.current]).sort()).toEqual([
        ["A", false],
        ["B", true],
      ]);
      const openRuns = async () =>
        Object.fromEntries((await ai.deployment.describe(name, { client })).builds.map((b) => [b.buildId, b.openRuns]));
      // Visibility is eventually consistent: wait for the counts to show the pinned run and the session on A.
      await untilAccepted(async () => expect(await openRuns()).toEqual({ A: 2, B: 0 }));
      const cliDescribe = await cli(["deployment", "describe", name, "--json"]);
      expect(cliDescribe.code).toBe(0);
      expect(JSON.parse(cliDescribe.stdout)).toMatchObject({ name, currentBuildId: "B" });

      // t4: the pinned run is approved and finishes on A.
      await pinned.approve("call_swap", { by: "alice" });
      const pinnedResult = await pinned.result();
      expect(pinnedResult).toMatchObject({ reply: "Answered by build A.", agentVersion: buildA.version });
      expect(pinnedResult.trace.filter((e) => e.type === "agent.changed")).toEqual([]);
      expect((await pinned.workflow.describe()).raw.workflowExecutionInfo?.versioningInfo?.behavior).toBe(1); // VERSIONING_BEHAVIOR_PINNED
      await replaysAndKeeps(pinned, "deployment-pinned-approval");

      // t5: the session answers its next message on A (pinned within a message), then continues as new onto B.
      const second = await session.send("Still there?");
      expect(second.agentVersion).toBe(buildA.version);
      const handle = client.workflow.getHandle(session.workflowId);
      await untilAccepted(async () => {
        if ((await handle.describe()).runId === second.runId) throw new Error("not continued as new yet");
      });
      await replaysAndKeeps(
        { workflow: client.workflow.getHandle(session.workflowId, second.runId) },
        "deployment-session-upgrade-at-continue-as-new",
      );
      const third = await session.send("And now?");
      expect(third).toMatchObject({ reply: "Answered by build B.", agentVersion: buildB.version });
      expect(third.trace.filter((e) => e.type === "agent.changed")).toEqual([]);
      expect((await handle.query<TraceEvent[]>("trace")).filter((e) => e.type === "agent.changed")).toMatchObject([
        { type: "agent.changed", from: buildA.version, to: buildB.version },
      ]);
      await session.end();
      // A has nothing open any more (its workers may stop); the session's last run closed on B.
      await untilAccepted(async () => expect(await openRuns()).toEqual({ A: 0, B: 0 }));
    } finally {
      workerA.shutdown();
      if (runningB) workerB.shutdown();
      await Promise.all([runningA, runningB]);
      await model.close();
    }
  });

  it("an auto-upgrade run waiting for approval on build A moves to build B at its next workflow task after B becomes current", async () => {
    const { model, name, queue, buildA, buildB, client, workerA, workerB } = await twoBuilds("auto-upgrade");
    const runningA = workerA.run();
    let runningB: Promise<void> | undefined;
    try {
      // t0: A is current; the run's first task is A's: it asks for approval and waits.
      await untilAccepted(() => ai.deployment.setCurrent(name, "A", { client }));
      const run = await buildA.start("Swap squats for lunges", { client, taskQueue: queue });
      await approvalRequested(run);
      const onA = (await run.workflow.describe()).raw.workflowExecutionInfo?.versioningInfo;
      expect(onA?.behavior).toBe(2); // VERSIONING_BEHAVIOR_AUTO_UPGRADE
      expect(onA?.deploymentVersion).toMatchObject({ deploymentName: name, buildId: "A" });

      // t1: B starts and becomes current. The waiting run has no task until a decision comes.
      runningB = workerB.run();
      await untilAccepted(() => ai.deployment.setCurrent(name, "B", { client }));
      // setCurrent returned once the switch reached the task queue: the next task cannot go to A any more.
      const { workerDeploymentInfo } = await client.workflowService.describeWorkerDeployment({
        namespace: "default",
        deploymentName: name,
      });
      expect(workerDeploymentInfo?.routingConfigUpdateState).toBe(2); // ROUTING_CONFIG_UPDATE_STATE_COMPLETED

      // t2: the approval's workflow task is B's; so is every task after it.
      await run.approve("call_swap", { by: "alice" });
      const result = await run.result();
      expect(result).toMatchObject({ reply: "Answered by build B.", agentVersion: buildB.version });
      expect(model.requests.at(-1)!.body.messages[0]).toMatchObject({ role: "system", content: "build B." });
      expect(result.trace.filter((e) => e.type === "agent.changed")).toEqual([
        { trip: 2, type: "agent.changed", agent: "deployed-coach", from: buildA.version, to: buildB.version },
      ]);
      expect(
        result.trace
          .filter((e) => e.type === "model.answered")
          .map((e) => e.type === "model.answered" && e.agentVersion),
      ).toEqual([buildA.version, buildB.version]);
      expect(result.trace.filter((e) => e.type === "approval")).toMatchObject([
        { outcome: "requested" },
        { outcome: "approved", by: "alice" },
      ]);
      const onB = (await run.workflow.describe()).raw.workflowExecutionInfo?.versioningInfo;
      expect(onB?.behavior).toBe(2);
      expect(onB?.deploymentVersion).toMatchObject({ deploymentName: name, buildId: "B" });
      await replaysAndKeeps(run, "deployment-auto-upgrade-approval");
    } finally {
      workerA.shutdown();
      if (runningB) workerB.shutdown();
      await Promise.all([runningA, runningB]);
      await model.close();
    }
  });

  it("durable-agent worker takes --deployment with --build-id (and --versioning); one without the other is a usage error", async () => {
    const alone = await cli(["worker", "test/fixtures/cli-agents.ts", "--deployment", "coach"]);
    expect(alone.code).toBe(64);
    expect(alone.stderr).toContain("--deployment and --build-id go together");
    const bad = await cli([
      "worker",
      "test/fixtures/cli-agents.ts",
      "--deployment",
      "coach",
      "--build-id",
      "A",
      "--versioning",
      "sticky",
    ]);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain('--versioning is pinned or auto-upgrade (got "sticky")');
  });
});
