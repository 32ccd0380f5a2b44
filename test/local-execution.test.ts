/**
 * `execution: "local"` tools and `modelExecution: "local"` model calls run as local activities:
 * the same result with fewer history events and workflow tasks; streaming of events, cancellation
 * and approvals keep working; token streaming with a local model call is refused.
 */
import { writeFileSync } from "node:fs";
import type { WorkflowHandle } from "@temporalio/client";
import { defaultPayloadConverter } from "@temporalio/common";
import { historyFromJSON, historyToJSON } from "@temporalio/common/lib/proto-utils.js";
import { Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { ai, AgentOptionsError, type RunHandle, type StreamedRunEvent } from "../src/index.js";
import { startScriptedModel, type ScriptedTurn } from "../src/testing/index.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { cancelWhileToolWaits } from "./support/ops-helpers.js";
import { byAgent, testAgent } from "./support/subagent-helpers.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const swap = (to: string): ScriptedTurn => ({
  toolCalls: [{ name: "update_plan", arguments: { from: "squats", to } }],
});
const script = (): ScriptedTurn[] => [swap("lunges"), swap("step-ups"), "Swapped twice."];

function planTool(executed: unknown[], options: { local?: boolean; needsApproval?: boolean } = {}) {
  return ai.tool({
    name: "update_plan",
    input: z.object({ from: z.string(), to: z.string() }),
    ...(options.local ? { execution: "local" as const } : {}),
    ...(options.needsApproval ? { needsApproval: true } : {}),
    execute: async (input) => (executed.push(input), { ok: true }),
  });
}

/** Activity types scheduled, local activity markers recorded and workflow tasks completed in a run's history. */
async function historyShape(handle: WorkflowHandle) {
  const events = (await handle.fetchHistory()).events ?? [];
  return {
    activities: events.flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType!.name!] : [],
    ),
    markers: events.filter((e) => e.markerRecordedEventAttributes).length,
    workflowTasks: events.filter((e) => e.workflowTaskCompletedEventAttributes).length,
  };
}

/** The tool names of the tool.execute calls a history scheduled as (non-local) activities. */
function toolActivityCalls(history: unknown): string[] {
  return (historyFromJSON(history).events ?? []).flatMap((e) => {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== "tool.execute") return [];
    return [defaultPayloadConverter.fromPayload<{ call: { name: string } }>(scheduled.input!.payloads![0]!).call.name];
  });
}

describe("local execution", () => {
  it("local tools and a local model call give the same result as activities, with no model.call or tool.execute activities and fewer workflow tasks", async () => {
    const outcomes = [];
    for (const local of [{}, { tools: true }, { tools: true, model: true }]) {
      const model = await startScriptedModel(script());
      const executed: unknown[] = [];
      const agent = ai.agent({
        name: `local-${Object.keys(local).join("-") || "none"}`,
        model: ai.openai("gpt-test", { baseURL: model.baseURL }),
        tools: [planTool(executed, { local: "tools" in local })],
        ...("model" in local ? { modelExecution: "local" as const } : {}),
      });
      outcomes.push(
        await withWorker(harness, [agent], async ({ taskQueue }) => {
          const handle = await agent.start("Swap squats", { client: harness.client, taskQueue });
          const result = await handle.result();
          return {
            reply: result.reply,
            toolCalls: result.toolCalls.map((c) => [c.status, c.input]),
            executed,
            sent: model.requests.map((r) => r.body.messages.length),
            ...(await historyShape(handle.workflow)),
          };
        }),
      );
      await model.close();
    }
    const [activities, localTools, allLocal] = outcomes as [
      (typeof outcomes)[0],
      (typeof outcomes)[0],
      (typeof outcomes)[0],
    ];
    for (const o of [localTools, allLocal]) {
      expect(o.reply).toBe(activities.reply);
      expect(o.toolCalls).toEqual(activities.toolCalls);
      expect(o.executed).toEqual([
        { from: "squats", to: "lunges" },
        { from: "squats", to: "step-ups" },
      ]);
      expect(o.sent).toEqual(activities.sent);
    }
    expect(activities.activities.filter((a) => a === "tool.execute")).toHaveLength(2);
    expect(localTools.activities).toEqual(["model.call", "model.call", "model.call"]);
    expect(allLocal.activities).toEqual([]);
    expect(localTools.workflowTasks).toBeLessThan(activities.workflowTasks);
    expect(allLocal.workflowTasks).toBeLessThan(localTools.workflowTasks);
    expect(allLocal.markers).toBeGreaterThan(localTools.markers);
  });

  it("a local model call streams the run's events and whole answers; token streaming (streamText) is refused with an AgentOptionsError", async () => {
    const model = await startScriptedModel(script());
    const agent = ai.agent({
      name: "local-stream",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [planTool([], { local: true })],
      modelExecution: "local",
    });
    const events = await withWorker(harness, [agent], async ({ taskQueue }) => {
      await expect(
        agent.start("Swap squats", { client: harness.client, taskQueue, streamText: true }),
      ).rejects.toSatisfy((e) => AgentOptionsError.isInstance(e) && (e as AgentOptionsError).field === "streamText");
      const seen: StreamedRunEvent[] = [];
      for await (const event of await agent.stream("Swap squats", { client: harness.client, taskQueue }))
        seen.push(event);
      return seen;
    });
    expect(events.filter((e) => e.type === "trip.started").map((e) => (e as { trip: number }).trip)).toEqual([1, 2, 3]);
    expect(events.filter((e) => e.type === "tool.finished")).toHaveLength(2);
    expect(events.filter((e) => e.type === "text.delta").map((e) => (e as { text: string }).text)).toEqual([
      "Swapped twice.",
    ]);
    expect(events.at(-1)).toMatchObject({
      type: "run.finished",
      result: { reply: "Swapped twice.", stopReason: "answered" },
    });
    await model.close();
  });

  it("handle.cancel() aborts an in-flight local tool call through its signal and ends the run cancelled", async () => {
    const model = await startScriptedModel([{ toolCalls: [{ name: "wait" }] }]);
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    let aborted!: () => void;
    const toolAborted = new Promise<void>((resolve) => (aborted = resolve));
    const wait = ai.tool({
      name: "wait",
      input: z.object({}),
      execution: "local",
      execute: (_input, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => (aborted(), reject(new Error("aborted"))));
          started();
        }),
    });
    const agent = ai.agent({
      name: "local-cancel",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [wait],
      modelExecution: "local",
    });
    const result = await cancelWhileToolWaits(harness, agent, toolStarted, toolAborted);
    expect(result).toMatchObject({ stopReason: "cancelled", trips: 1 });
    expect(result.trace.at(-1)).toMatchObject({ detail: "cancelled during trip 1: tool calls wait" });
    await model.close();
  });

  it("a local tool that needs approval waits for it, then runs once", async () => {
    const model = await startScriptedModel([swap("lunges"), "Done."]);
    const executed: unknown[] = [];
    const agent = ai.agent({
      name: "local-approval",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [planTool(executed, { local: true, needsApproval: true })],
      modelExecution: "local",
    });
    const result = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle: RunHandle = await agent.start("Swap squats for lunges", { client: harness.client, taskQueue });
      for await (const event of handle.stream()) {
        if (event.type === "approval" && event.outcome === "requested") {
          expect(executed).toEqual([]);
          await handle.approve(event.callId);
          break;
        }
      }
      return handle.result();
    });
    expect(executed).toEqual([{ from: "squats", to: "lunges" }]);
    expect(result.toolCalls).toMatchObject([{ status: "ok" }]);
    expect(result.reply).toBe("Done.");
    await model.close();
  });

  it("a session's local tools stay local activities after a handoff in an earlier message", async () => {
    const model = await startScriptedModel(
      byAgent({
        "local-session": [
          { toolCalls: [{ name: "transfer_to_local-helper", arguments: {} }] },
          swap("lunges"),
          "Swapped.",
        ],
        "local-helper": ["The helper answered message 1."],
      }),
    );
    const executed: unknown[] = [];
    const helper = testAgent("local-helper", model.baseURL);
    const agent = testAgent("local-session", model.baseURL, {
      tools: [planTool(executed, { local: true })],
      handoffs: [helper],
    });
    const { first, second, history } = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const session = agent.session(`local-handoff-${Date.now()}`, { client: harness.client, taskQueue });
      const first = await session.send("Hand me to the helper");
      const second = await session.send("Swap squats for lunges");
      await session.end();
      return {
        first,
        second,
        history: JSON.parse(historyToJSON(await harness.client.workflow.getHandle(session.workflowId).fetchHistory())),
      };
    });
    // With RECORD_FIXTURES=1 the history is kept as session-local-tools-after-handoff.json (recorded before the fix), with =<change> as .<change>.json.
    const change = process.env.RECORD_FIXTURES;
    if (change)
      writeFileSync(
        new URL(
          `./fixtures/histories/session-local-tools-after-handoff${change === "1" ? "" : `.${change}`}.json`,
          import.meta.url,
        ),
        JSON.stringify(history, null, 1) + "\n",
      );
    await model.close();
    expect(first).toMatchObject({ agent: "local-helper", reply: "The helper answered message 1." });
    expect(second).toMatchObject({
      agent: "local-session",
      reply: "Swapped.",
      toolCalls: [{ name: "update_plan", status: "ok" }],
    });
    expect(executed).toEqual([{ from: "squats", to: "lunges" }]);
    // Only the handoff ran as a tool.execute activity: message 2's update_plan ran as a local activity, as its agent asks.
    expect(toolActivityCalls(history)).toEqual(["transfer_to_local-helper"]);
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: inject("workflowBundlePath") }, replayName: "durable-agent-replay" },
      historyFromJSON(history),
      "session-local-tools-after-handoff",
    );
  });

  it('execution and modelExecution take only "activity" or "local"', () => {
    const model = ai.openai("gpt-test", { baseURL: "http://127.0.0.1:9" });
    expect(() => ai.tool({ name: "t", input: z.object({}), execution: "remote" as never, execute: () => 1 })).toThrow(
      /execution is "activity" or "local"/,
    );
    expect(() => ai.agent({ name: "a", model, modelExecution: "nearby" as never })).toThrow(AgentOptionsError);
  });
});
