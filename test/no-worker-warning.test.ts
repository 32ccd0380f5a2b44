/** Issue 12, item 5: a run that no worker serves warns once through the logger, and still runs when a worker comes. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { watchForNoWorker } from "../src/client/no-worker-warning.js";
import { hasWorkflowPollers } from "../src/client/task-queue.js";
import { ai } from "../src/index.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { connectHarness, taskQueue, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
let model: ScriptedModel;
beforeAll(async () => {
  harness = await connectHarness();
  model = await startScriptedModel(() => "Hello, I was waiting for a worker.");
});
afterAll(async () => {
  await model.close();
  await harness.close();
});

describe("options.noWorkerWarningAfter", () => {
  it("warns once, naming the task queue, the agent and how to start a worker; a worker started later completes the run", async () => {
    const agent = ai.agent({ name: "lonely", model: ai.openai("gpt-test", { baseURL: model.baseURL, apiKey: "k" }) });
    const queue = taskQueue();
    const warnings: string[] = [];
    let warned!: () => void;
    const firstWarning = new Promise<void>((resolve) => (warned = resolve));
    const handle = await agent.start("Hi", {
      client: harness.client,
      taskQueue: queue,
      noWorkerWarningAfter: "100ms",
      logger: { warn: (message) => (warnings.push(message), warned()) },
    });
    await firstWarning;
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      `No worker polls task queue "${queue}": run ${handle.workflowId} of agent "lonely" is waiting for one`,
    );
    expect(warnings[0]).toContain(`npx durable-agent worker ./agents.js --task-queue ${queue}`);
    const result = await withWorker(harness, [agent], () => handle.result(), { taskQueue: queue });
    expect(result).toMatchObject({ stopReason: "answered", reply: "Hello, I was waiting for a worker." });
    expect(warnings).toHaveLength(1);
  });

  it("says nothing when a worker polls the task queue", async () => {
    const agent = ai.agent({ name: "served", model: ai.openai("gpt-test", { baseURL: model.baseURL, apiKey: "k" }) });
    const warnings: string[] = [];
    const logger = { warn: (message: string) => warnings.push(message) };
    const queue = taskQueue();
    // A run that nothing serves yet, checked while a worker polls its queue: no warning.
    const handle = await agent.start("Hi", { client: harness.client, taskQueue: queue, noWorkerWarningAfter: false });
    const warned = await withWorker(
      harness,
      [agent],
      async () => {
        // A started worker polls a moment later (seconds on a loaded machine): check once the server lists its poller.
        while (!(await hasWorkflowPollers(harness.client, queue)))
          await new Promise((resolve) => setTimeout(resolve, 50));
        return watchForNoWorker(harness.client, harness.client.workflow.getHandle(handle.workflowId), {
          agent: agent.name,
          taskQueue: queue,
          after: 0,
          logger,
        });
      },
      { taskQueue: queue },
    );
    expect({ warned, warnings }).toEqual({ warned: false, warnings: [] });
    // And the same check on a queue that nothing polls does warn.
    const orphan = await agent.start("Hi", {
      client: harness.client,
      taskQueue: taskQueue(),
      noWorkerWarningAfter: false,
    });
    expect(
      await watchForNoWorker(harness.client, harness.client.workflow.getHandle(orphan.workflowId), {
        agent: agent.name,
        taskQueue: "nobody-polls-this",
        after: 0,
        logger,
      }),
    ).toBe(true);
    await harness.client.workflow.getHandle(orphan.workflowId).terminate("test over");
  });
});
