import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, expect, it } from "vitest";
import { inject } from "vitest";
import { z } from "zod";
import { ai } from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { connectHarness, taskQueue, type Harness } from "./harness.js";

let harness: Harness;
const children: ChildProcess[] = [];
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await harness.close();
});

/** Starts the crash worker in its own process; resolves with a waiter for lines it prints. */
function startWorkerProcess(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=source", "test/fixtures/crash-worker.ts"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  const waitFor = (text: string) =>
    new Promise<void>((resolve, reject) => {
      lines.on("line", (line) => line === text && resolve());
      child.once("exit", (code) => reject(new Error(`worker exited (${code}) before printing ${text}`)));
    });
  return { child, waitFor };
}

it("a run survives a SIGKILLed worker: the in-flight tool call is retried on a new worker, and every completed call ran once", async () => {
  const model = await startScriptedModel([{ toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] }, "Done: squats are now lunges."]);
  const toolLog = join(mkdtempSync(join(tmpdir(), "crash-")), "tool.log");
  const env = {
    TEMPORAL_ADDRESS: harness.address,
    TEMPORAL_TASK_QUEUE: taskQueue(),
    OPENAI_BASE_URL: model.baseURL,
    TOOL_LOG: toolLog,
    WORKFLOW_BUNDLE: inject("workflowBundlePath"),
  };
  // The client's view of the agent: only the name matters, the worker holds the definition.
  const coach = ai.agent({ name: "crash-coach", model: ai.openai("gpt-test"), tools: [ai.tool({ name: "update_plan", input: z.object({}), execute: () => null })] });

  const first = startWorkerProcess(env);
  const toolStarted = first.waitFor("TOOL_STARTED 1");
  const handle = await coach.start("Swap squats for lunges", { client: harness.client, taskQueue: env.TEMPORAL_TASK_QUEUE });
  await toolStarted;
  first.child.kill("SIGKILL");

  const second = startWorkerProcess(env);
  const result = await handle.result();

  expect(result.reply).toBe("Done: squats are now lunges.");
  expect(result.toolCalls).toMatchObject([{ name: "update_plan", status: "ok", output: { ok: true, swapped: { from: "squats", to: "lunges" } } }]);
  expect(model.requests).toHaveLength(2);
  expect(readFileSync(toolLog, "utf8").trim().split("\n")).toEqual(["started 1", "started 2", "completed 2"]);
  const history = await handle.workflow.fetchHistory();
  const toolAttempts = history.events!.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt);
  expect(toolAttempts).toEqual([1, 2, 1]); // model call, tool call (retried once), model call
  second.child.kill("SIGKILL");
  await model.close();
}, 90_000);
