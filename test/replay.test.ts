/**
 * Determinism guard: histories of real runs replay with the worker's replayer. Fresh histories are
 * recorded on every run; committed fixtures (test/fixtures/histories) guard against changes that
 * would break runs already in flight. `RECORD_FIXTURES=<change> npm test -- replay` cuts a new set
 * beside the old ones (`<scenario>.<change>.json`); the old ones stay, as runs in flight.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { historyFromJSON, historyToJSON } from "@temporalio/common/lib/proto-utils.js";
import { Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { ai, type Agent, type AgentOptions, type Backstop, type RunResult } from "../src/index.js";
import { startScriptedModel, type ScriptedTurn } from "../src/testing/index.js";
import { connectHarness, withWorker, type Harness } from "./harness.js";

const FIXTURES = new URL("./fixtures/histories/", import.meta.url);

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const updatePlan = ai.tool({
  name: "update_plan",
  input: z.object({ from: z.string(), to: z.string() }),
  execute: async ({ to }) => (to === "moonwalks" ? { ok: false, reason: "moonwalks is not in the library" } : { ok: true }),
});
const localUpdatePlan = ai.tool({ name: "update_plan", input: z.object({ from: z.string(), to: z.string() }), execution: "local", execute: async () => ({ ok: true }) });
const crashy = ai.tool({ name: "crashy", input: z.object({}), execute: async () => { throw new Error("boom"); } });

const swap = (to: string): ScriptedTurn => ({ toolCalls: [{ name: "update_plan", arguments: { from: "squats", to } }] });
const backstops: Backstop[] = [
  { name: "injury-capture", phase: "before", detect: (t) => /hurt/.test(t.input), run: () => ({ prompt: "Acknowledge the injury." }) },
  { name: "audit", detect: (t) => t.reply === "Audit me.", run: ({ state }) => ({ prompt: `Audited ${Object.keys(state).length}.` }) },
];

/** Scenarios covering each path of the trip loop and each kind of re-prompt. */
const scenarios: Record<string, { script: ScriptedTurn[]; maxTrips?: number; input?: string; options?: Partial<AgentOptions> }> = {
  "answer-only": { script: ["Hello there."] },
  "tool-call": { script: [{ toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] }, "Swapped."] },
  "refused-failed-and-parallel": {
    script: [
      {
        toolCalls: [
          { name: "update_plan", arguments: { from: "squats", to: "moonwalks" } },
          { name: "update_plan", arguments: { from: "squats" } },
          { name: "crashy", arguments: {} },
          { name: "unknown_tool", arguments: {} },
        ],
      },
      "Nothing worked.",
    ],
  },
  "max-trips": { script: Array(2).fill({ toolCalls: [{ name: "update_plan", arguments: { from: "a", to: "b" } }] }), maxTrips: 2 },
  "reprompt-act-when-asked": {
    script: ["Want me to swap that?", swap("lunges"), "Done."],
    options: { actWhenAsked: { intents: [/\bswap\b/i], requiredTools: ["update_plan"] } },
  },
  "reprompt-refusal-retry": { script: [swap("moonwalks"), "Sorry.", swap("lunges"), "Done."], options: { onToolRefusal: "retry-once-with-hint" } },
  "reprompt-backstops": { script: ["Audit me.", "Audited."], input: "I hurt my knee, swap squats", options: { backstops } },
  "local-model-and-tools": { script: [swap("lunges"), "Swapped."], options: { modelExecution: "local", tools: [localUpdatePlan] } },
  "reprompt-all-three": {
    script: [swap("moonwalks"), "Audit me.", "Sorry.", "Want me to?", "Final."],
    options: { backstops, onToolRefusal: "retry-once-with-hint", actWhenAsked: { intents: ["swap"], requiredTools: ["update_plan"] } },
  },
};

async function record(name: string): Promise<{ history: unknown; result: RunResult }> {
  const { script, maxTrips, input = "Swap squats", options } = scenarios[name]!;
  const model = await startScriptedModel(script);
  try {
    const agent: Agent = ai.agent({ name: "replay-coach", model: ai.openai("gpt-test", { baseURL: model.baseURL }), tools: [updatePlan, crashy], maxTrips, ...options });
    return await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start(input, { client: harness.client, taskQueue, workflowId: `replay-${name}` + `-${Date.now()}` });
      const result = await handle.result();
      return { result, history: JSON.parse(historyToJSON(await handle.workflow.fetchHistory())) };
    });
  } finally {
    await model.close();
  }
}

async function replay(histories: Array<{ workflowId: string; history: unknown }>) {
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories(
    { workflowBundle: { codePath: inject("workflowBundlePath") }, replayName: "durable-agent-replay" },
    histories.map(({ workflowId, history }) => ({ workflowId, history: historyFromJSON(history) })),
  )) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  return failures;
}

describe("replay", () => {
  it("fresh histories of every trip-loop path replay without a determinism error", async () => {
    const histories = [];
    const repromptKinds = new Set<string>();
    for (const name of Object.keys(scenarios)) {
      const { history, result } = await record(name);
      for (const event of result.trace) if (event.type === "reprompt") repromptKinds.add(event.kind);
      histories.push({ workflowId: name, history });
      const change = process.env.RECORD_FIXTURES;
      if (change) writeFileSync(new URL(change === "1" ? `${name}.json` : `${name}.${change}.json`, FIXTURES), JSON.stringify(history, null, 1) + "\n");
    }
    expect(histories).toHaveLength(Object.keys(scenarios).length);
    expect([...repromptKinds].sort()).toEqual(["act-when-asked", "backstop", "refusal-retry"]);
    expect(await replay(histories)).toEqual([]);
  });

  it("committed fixtures of earlier versions still replay", async () => {
    const files = readdirSync(FIXTURES).filter((file) => file.endsWith(".json"));
    expect(files.length).toBeGreaterThanOrEqual(Object.keys(scenarios).length);
    const histories = files.map((file) => ({ workflowId: file, history: JSON.parse(readFileSync(new URL(file, FIXTURES), "utf8")) }));
    expect(await replay(histories)).toEqual([]);
  });

  it("a determinism break is caught: a history replayed against a changed workflow fails", async () => {
    const history = JSON.parse(readFileSync(new URL("tool-call.json", FIXTURES), "utf8"));
    // Rename the recorded activity type, as a code change that schedules something else would.
    const tampered = JSON.parse(JSON.stringify(history).replaceAll('"tool.execute"', '"tool.renamed"'));
    const failures = await replay([{ workflowId: "tampered", history: tampered }]);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/tampered/);
  });
});
