/**
 * A run started through a client that shares the worker's `NativeConnection` starts eagerly: its
 * first workflow task comes back with the start call instead of through the task queue. Through
 * any other client, or with no local worker on the task queue, the start is an ordinary one.
 */
import { Client, type WorkflowHandleWithStartDetails } from "@temporalio/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ai } from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { connectHarness, taskQueue, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const eagerly = (handle: { workflow: unknown }) => (handle.workflow as WorkflowHandleWithStartDetails).eagerlyStarted;

it("starts eagerly through a client over the worker's NativeConnection, and ordinarily through a gRPC Connection; both runs answer", async () => {
  const model = await startScriptedModel(() => "Lunges.");
  const agent = ai.agent({ name: "eager-coach", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
  try {
    await withWorker(harness, [agent], async ({ taskQueue }) => {
      const native = await agent.start("Swap squats for lunges", {
        client: new Client({ connection: harness.connection }),
        taskQueue,
      });
      const grpc = await agent.start("Swap squats for lunges", { client: harness.client, taskQueue });
      expect([eagerly(native), eagerly(grpc)]).toEqual([true, false]);
      expect((await native.result()).reply).toBe("Lunges.");
      expect((await grpc.result()).reply).toBe("Lunges.");
    });
  } finally {
    await model.close();
  }
});

it("with no worker of this process on the task queue, the start is ordinary and a worker started later runs it", async () => {
  const model = await startScriptedModel(() => "Lunges.");
  const agent = ai.agent({ name: "eager-coach", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
  const queue = taskQueue();
  try {
    const handle = await agent.start("Swap squats for lunges", {
      client: new Client({ connection: harness.connection }),
      taskQueue: queue,
      noWorkerWarningAfter: false,
    });
    expect(eagerly(handle)).toBe(false);
    const result = await withWorker(harness, [agent], () => handle.result(), { taskQueue: queue });
    expect(result).toMatchObject({ stopReason: "answered", reply: "Lunges." });
  } finally {
    await model.close();
  }
});
