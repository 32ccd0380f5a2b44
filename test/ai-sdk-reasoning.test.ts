/**
 * Issue 31, item 3: reasoning survives the run. Claude's thinking of trip N goes back on trip N+1
 * with its signature, shown on the wire (the scripted Anthropic server keeps each request's body):
 * after a worker SIGKILL between the two trips, across a session's continue-as-new, in a fork at
 * trip N+1, and in a replay with recorded tools. Recorded runs with reasoning read into cases.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { randomUUID } from "node:crypto";
import { NativeConnection } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ai, defineScorer } from "../src/index.js";
import {
  startDevServer,
  startScriptedAnthropic,
  type DevServer,
  type ScriptedAnthropicBody,
  type ScriptedProviderTurn,
} from "../src/testing/index.js";
import { CONTINUE_AS_NEW_SOON } from "./support/continue-as-new-server.js";
import { createAgentWorker } from "../src/worker.js";
import { updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, taskQueue, withWorker, type Harness } from "./support/harness.js";
import { runChain } from "./support/history-helpers.js";
import { assistantBlocks, claudeAgent } from "./support/ai-sdk-helpers.js";

let harness: Harness;
const children: ChildProcess[] = [];
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await harness.close();
});

const thinkThenSwap = (signature: string, to = "lunges"): ScriptedProviderTurn => ({
  reasoning: { text: `Swap to ${to}.`, signature },
  toolCalls: [{ name: "update_plan", arguments: { from: "squats", to } }],
});

/** The thinking block of the first answer a request sends back. */
const firstThinking = (body: ScriptedAnthropicBody) => assistantBlocks(body)[0]?.[0];

describe("reasoning survives", () => {
  it("a worker SIGKILLed between trip 1 and trip 2: the new worker sends trip 1's thinking and signature back", async () => {
    const server = await startScriptedAnthropic([thinkThenSwap("sig-before-crash"), "Done: squats are now lunges."]);
    const env = {
      TEMPORAL_ADDRESS: harness.address,
      TEMPORAL_TASK_QUEUE: taskQueue(),
      ANTHROPIC_BASE_URL: server.baseURL,
      WORKFLOW_BUNDLE: inject("workflowBundlePath"),
    };
    const start = () => {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "--conditions=durable-agent-source", "test/fixtures/ai-sdk-crash-worker.ts"],
        { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] },
      );
      children.push(child);
      const lines = createInterface({ input: child.stdout! });
      const waitFor = (text: string) =>
        new Promise<void>((resolve) => lines.on("line", (line) => line === text && resolve()));
      return { child, waitFor };
    };
    // The client's view of the agent: its name; the worker process holds the definition.
    const coach = ai.agent({ name: "reasoning-crash-coach", model: ai.openai("unused") });
    const first = start();
    const toolStarted = first.waitFor("TOOL_STARTED 1");
    const handle = await coach.start("Swap squats for lunges", {
      client: harness.client,
      taskQueue: env.TEMPORAL_TASK_QUEUE,
    });
    await toolStarted;
    first.child.kill("SIGKILL");
    const second = start();
    const result = await handle.result();
    second.child.kill("SIGKILL");
    await server.close();
    expect(result.reply).toBe("Done: squats are now lunges.");
    expect(server.requests).toHaveLength(2);
    expect(firstThinking(server.requests[1]!.body)).toEqual({
      type: "thinking",
      thinking: "Swap to lunges.",
      signature: "sig-before-crash",
    });
  }, 90_000);

  it("across a session's continue-as-new: every earlier answer's thinking goes back with its signature", async () => {
    let dev: DevServer | undefined;
    let connection: NativeConnection | undefined;
    const server = await startScriptedAnthropic((request) => ({
      reasoning: { text: `Message ${request.index}.`, signature: `sig-m${request.index}` },
      text: `Answer ${request.index}.`,
    }));
    try {
      dev = await startDevServer({ extraArgs: CONTINUE_AS_NEW_SOON });
      connection = await NativeConnection.connect({ address: dev.address });
      const client = dev.env.client;
      const agent = claudeAgent("reasoning-session", server.baseURL);
      const queue = `can-${randomUUID()}`;
      const worker = await createAgentWorker({
        agents: [agent],
        connection,
        taskQueue: queue,
        workflowBundle: { codePath: inject("workflowBundlePath") },
      });
      const chain = await worker.runUntil(async () => {
        const session = agent.session(`reasoning-${randomUUID()}`, { client, taskQueue: queue });
        for (let i = 0; i < 12; i++) await session.send(`m${i}`);
        const firstRunId = (await client.workflow.getHandle(session.workflowId).describe()).raw.workflowExecutionInfo!
          .firstRunId!;
        const runs = await runChain(client, session.workflowId, firstRunId);
        await session.end();
        return runs;
      });
      expect(chain.length).toBeGreaterThan(1); // continue-as-new was crossed
      const last = server.requests.at(-1)!.body;
      expect(assistantBlocks(last).map((blocks) => blocks[0])).toEqual(
        Array.from({ length: 11 }, (_v, i) => ({
          type: "thinking",
          thinking: `Message ${i}.`,
          signature: `sig-m${i}`,
        })),
      );
    } finally {
      await connection?.close();
      await dev?.stop();
      await server.close();
    }
  }, 180_000);

  it("in a fork at trip 2: the fork's model call sends trip 1's recorded thinking back", async () => {
    const server = await startScriptedAnthropic([thinkThenSwap("sig-recorded"), "Old reply.", "New reply."]);
    try {
      const agent = claudeAgent("reasoning-fork", server.baseURL, { tools: [updatePlanTool()] });
      const fork = await withWorker(harness, [agent], async ({ taskQueue }) => {
        const recorded = await agent.run("Swap squats for lunges", { client: harness.client, taskQueue });
        const handle = await ai.fork(recorded.workflowId, { atTrip: 2, client: harness.client, taskQueue });
        return handle.result();
      });
      expect(fork.reply).toBe("New reply.");
      expect(server.requests).toHaveLength(3);
      expect(firstThinking(server.requests[2]!.body)).toEqual({
        type: "thinking",
        thinking: "Swap to lunges.",
        signature: "sig-recorded",
      });
      expect(fork.messages[1]).toMatchObject({
        reasoning: [{ text: "Swap to lunges.", providerMetadata: { anthropic: { signature: "sig-recorded" } } }],
      });
    } finally {
      await server.close();
    }
  });

  it("in a replay with recorded tools: the replay's own thinking of trip 1 goes back on trip 2; the recorded case holds the recording's", async () => {
    const recording = await startScriptedAnthropic([thinkThenSwap("sig-recording"), "Done."]);
    const replay = await startScriptedAnthropic([thinkThenSwap("sig-replay"), "Done again."]);
    try {
      const executions: unknown[] = [];
      const recorder = claudeAgent("reasoning-replay", recording.baseURL, { tools: [updatePlanTool(executions)] });
      const replayer = claudeAgent("reasoning-replay", replay.baseURL, { tools: [updatePlanTool(executions)] });
      const recorded = await withWorker(harness, [recorder], ({ taskQueue }) =>
        recorder.run("Swap squats for lunges", { client: harness.client, taskQueue }),
      );
      const cases = await ai.eval.casesFromRuns({ workflowIds: [recorded.workflowId], client: harness.client });
      expect(cases[0]!.recorded.messages?.[1]).toMatchObject({
        reasoning: [{ providerMetadata: { anthropic: { signature: "sig-recording" } } }],
      });
      const report = await withWorker(harness, [replayer], ({ taskQueue }) =>
        replayer.eval({
          cases,
          scorers: [
            defineScorer("replayed", (record) => ({ pass: record.toolCalls.every((c) => c.replayed === true) })),
          ],
          tools: "recorded",
          client: harness.client,
          taskQueue,
        }),
      );
      expect(report.rows.map((r) => r.status)).toEqual(["pass"]);
      expect(executions).toHaveLength(1); // the recording's only
      expect(firstThinking(replay.requests[1]!.body)).toEqual({
        type: "thinking",
        thinking: "Swap to lunges.",
        signature: "sig-replay",
      });
    } finally {
      await recording.close();
      await replay.close();
    }
  });
});
