/**
 * Determinism guard: histories of real runs replay with the worker's replayer. Fresh histories are
 * recorded on every run; committed fixtures (test/fixtures/histories) guard against changes that
 * would break runs already in flight. `RECORD_FIXTURES=<change> npm test -- replay` cuts a new set
 * beside the old ones (`<scenario>.<change>.json`); the old ones stay, as runs in flight.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { historyFromJSON, historyToJSON } from "@temporalio/common/lib/proto-utils.js";
import { Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import {
  ai,
  type Agent,
  type AgentOptions,
  type Backstop,
  type ModelPricing,
  type RunInput,
  type RunOptions,
  type RunResult,
} from "../src/index.js";
import { startScriptedModel, type ScriptedTurn } from "../src/testing/index.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { committedFixtures, decodedHistory, toolExecuteShapes } from "./support/history-helpers.js";
import { startHttpMcpServer } from "./fixtures/mcp/http-server.js";
import { ask, byAgent, testAgent, usageByAgent } from "./support/subagent-helpers.js";
import type { Message, RunHandle } from "../src/index.js";

const FIXTURES = new URL("./fixtures/histories/", import.meta.url);

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const updatePlan = ai.tool({
  name: "update_plan",
  input: z.object({ from: z.string(), to: z.string() }),
  execute: async ({ to }) =>
    to === "moonwalks" ? { ok: false, reason: "moonwalks is not in the library" } : { ok: true },
});
const localUpdatePlan = ai.tool({
  name: "update_plan",
  input: z.object({ from: z.string(), to: z.string() }),
  execution: "local",
  execute: async () => ({ ok: true }),
});
const crashy = ai.tool({
  name: "crashy",
  input: z.object({}),
  execute: async () => {
    throw new Error("boom");
  },
});

const swap = (to: string): ScriptedTurn => ({
  toolCalls: [{ name: "update_plan", arguments: { from: "squats", to } }],
});
const backstops: Backstop[] = [
  {
    name: "injury-capture",
    phase: "before",
    detect: (t) => /hurt/.test(t.input),
    run: () => ({ prompt: "Acknowledge the injury." }),
  },
  {
    name: "audit",
    detect: (t) => t.reply === "Audit me.",
    run: ({ state }) => ({ prompt: `Audited ${Object.keys(state).length}.` }),
  },
];

/** Scenarios covering each path of the trip loop and each kind of re-prompt. */
const usage = (prompt: number, completion: number) => ({
  usage: { prompt_tokens: prompt, completion_tokens: completion },
});
const cutAfterUsage =
  'data: {"id":"c","created":1,"model":"m","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"half"},"finish_reason":null}]}\n\n' +
  'data: {"id":"c","created":1,"model":"m","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":4,"completion_tokens":1,"total_tokens":5}}\n\n';

const scenarios: Record<
  string,
  {
    script: ScriptedTurn[];
    maxTrips?: number;
    input?: RunInput;
    options?: Partial<AgentOptions>;
    searchAttributes?: boolean;
    run?: RunOptions;
    /** The model's prices (each call's usage then has a cost). */
    pricing?: ModelPricing;
  }
> = {
  "answer-only": { script: ["Hello there."] },
  // Text deltas ride on the model call's heartbeats: nothing of them in the history (streamed-text.json is a run of before, with publish signals and poll updates).
  "streamed-text": {
    script: [
      {
        text: "Lunges it is: same muscles, kinder to the knees.",
        toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }],
      },
      "Swapped.",
    ],
    run: { streamText: true },
  },
  "tool-call": {
    script: [{ toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] }, "Swapped."],
  },
  // The model call's first attempt breaks mid-stream: attempt 2's answer is recorded with its attempt (model.answered's `attempt`).
  "streamed-text-retried": {
    script: [
      { text: "Lunges it is: same muscles, kinder to the knees.", cutAfterChunks: 3, cutBy: "close" },
      {
        text: "Lunges it is: same muscles, kinder to the knees.",
        toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }],
      },
      "Swapped.",
    ],
    run: { streamText: true },
  },
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
  "max-trips": {
    script: Array(2).fill({ toolCalls: [{ name: "update_plan", arguments: { from: "a", to: "b" } }] }),
    maxTrips: 2,
  },
  "reprompt-act-when-asked": {
    script: ["Want me to swap that?", swap("lunges"), "Done."],
    options: { actWhenAsked: { intents: [/\bswap\b/i], requiredTools: ["update_plan"] } },
  },
  "reprompt-refusal-retry": {
    script: [swap("moonwalks"), "Sorry.", swap("lunges"), "Done."],
    options: { onToolRefusal: "retry-once-with-hint" },
  },
  "reprompt-backstops": {
    script: ["Audit me.", "Audited."],
    input: "I hurt my knee, swap squats",
    options: { backstops },
  },
  "local-model-and-tools": {
    script: [swap("lunges"), "Swapped."],
    options: { modelExecution: "local", tools: [localUpdatePlan] },
  },
  "reprompt-all-three": {
    script: [swap("moonwalks"), "Audit me.", "Sorry.", "Want me to?", "Final."],
    options: {
      backstops,
      onToolRefusal: "retry-once-with-hint",
      actWhenAsked: { intents: ["swap"], requiredTools: ["update_plan"] },
    },
  },
  // Typed output: an invalid answer, the output repair re-prompt, a valid one.
  "output-repair": {
    script: ['{"exercise":"lunges"}', '{"exercise":"lunges","sets":3}'],
    options: { output: z.object({ exercise: z.string(), sets: z.number() }) },
  },
  // Run context (read by query) and dynamic instructions (the input passed to each model call).
  "context-instructions": {
    script: [swap("lunges"), "Done."],
    options: {
      instructions: ({ context, trip }) => `Coach ${String((context as { user: string }).user)}, trip ${trip}.`,
      backstops: [{ name: "ctx", phase: "before", detect: (t) => t.context !== undefined, run: () => undefined }],
    },
    run: { context: { user: "u-1" } },
  },
  // Images in the input: content parts; intents see the text parts joined.
  "image-input": {
    script: ["Want me to swap that?", swap("lunges"), "Done."],
    input: [
      {
        role: "user",
        content: [
          { type: "text", text: "Swap this one" },
          { type: "image_url", image_url: { url: "https://example.com/squat.png" } },
        ],
      },
    ],
    options: { actWhenAsked: { intents: [/\bswap\b/i], requiredTools: ["update_plan"] } },
  },
  // A run's model settings, sent with each model call; a forcing toolChoice on the first trip only.
  "model-settings": { script: [swap("lunges"), "Done."], run: { modelSettings: { toolChoice: "required", seed: 7 } } },
  // Usage: a failed attempt's usage (signal), per-answer usage, DurableAgentTokens (patched), and a budget stop.
  "usage-budget": {
    script: [
      { raw: cutAfterUsage, hangUp: true },
      ...[1, 2].map(() => ({
        toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }],
        ...usage(8, 2),
      })),
      "Unreached.",
    ],
    options: { budget: { maxTokens: 25 } },
    searchAttributes: true,
  },
  // DurableAgentCostUsd with DurableAgentTokens after each priced model call, and DurableAgentBackstopRan (both patched) once the first backstop runs.
  "search-attributes-cost-backstop": {
    script: [
      { text: "Audit me.", ...usage(8, 2) },
      { text: "Audited.", ...usage(12, 3) },
    ],
    input: "I hurt my knee, swap squats",
    options: { backstops },
    pricing: { inputPerMillion: 2, outputPerMillion: 8 },
    searchAttributes: true,
  },
};

async function record(name: string): Promise<{ history: unknown; result: RunResult }> {
  const { script, maxTrips, input = "Swap squats", options, searchAttributes, run, pricing } = scenarios[name]!;
  const model = await startScriptedModel(script);
  try {
    const agent: Agent = ai.agent({
      name: "replay-coach",
      model: ai.openai("gpt-test", { baseURL: model.baseURL, ...(pricing ? { pricing } : {}) }),
      tools: [updatePlan, crashy],
      maxTrips,
      ...options,
    });
    return await withWorker(
      harness,
      [agent],
      async ({ taskQueue }) => {
        const handle = await agent.start(input, {
          ...run,
          client: harness.client,
          taskQueue,
          workflowId: `replay-${name}` + `-${Date.now()}`,
        });
        const result = await handle.result();
        return { result, history: JSON.parse(historyToJSON(await handle.workflow.fetchHistory())) };
      },
      { searchAttributes: searchAttributes === true },
    );
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

/** Multi-agent scenarios: the calling run's history and each child's, replayed apart (a child's events are in its own history). */
const lookup = ai.tool({
  name: "lookup_invoice",
  input: z.object({ id: z.string() }),
  execute: async ({ id }) => ({ id, amount: 42 }),
});
const refund = ai.tool({
  name: "refund",
  input: z.object({ amount: z.number() }),
  needsApproval: true,
  execute: async () => ({ ok: true }),
});
type TreeScenario = {
  script: Parameters<typeof byAgent>[0];
  agents: (baseURL: string) => Agent;
  /** Acts on the live run (approves, cancels). */
  drive?: (handle: RunHandle) => Promise<void>;
};
const treeScenarios: Record<string, TreeScenario> = {
  "subagents-parallel-handoff": {
    script: {
      triage: [
        { toolCalls: [ask("billing", "Invoice 7?"), ask("support", "Plan active?")] },
        { toolCalls: [{ name: "transfer_to_closer", arguments: {} }] },
      ],
      billing: [{ toolCalls: [{ name: "lookup_invoice", arguments: { id: "7" } }] }, "Invoice 7 is $42."],
      support: ["Active."],
      closer: ["All sorted."],
    },
    agents: (baseURL) => {
      const billing = testAgent("billing", baseURL, { tools: [lookup] });
      return testAgent("triage", baseURL, {
        tools: [billing.asTool(), testAgent("support", baseURL).asTool()],
        handoffs: [testAgent("closer", baseURL)],
      });
    },
  },
  "subagents-three-levels": {
    script: {
      lead: [{ toolCalls: [ask("manager", "Plan")] }, "Planned."],
      manager: [{ toolCalls: [ask("worker", "Tasks?")] }, "Two tasks."],
      worker: ["A and B."],
    },
    agents: (baseURL) =>
      testAgent("lead", baseURL, {
        tools: [testAgent("manager", baseURL, { tools: [testAgent("worker", baseURL).asTool()] }).asTool()],
      }),
  },
  "subagents-approval": {
    script: {
      triage: [{ toolCalls: [ask("billing", "Refund $42")] }, "Refunded."],
      billing: [{ toolCalls: [{ name: "refund", arguments: { amount: 42 } }] }, "Done."],
    },
    agents: (baseURL) =>
      testAgent("triage", baseURL, { tools: [testAgent("billing", baseURL, { tools: [refund] }).asTool()] }),
    drive: async (handle) => {
      for await (const event of handle.stream()) if (event.type === "approval" && event.outcome === "requested") break;
      await handle.approve((await handle.pendingApprovals())[0]!.callId);
    },
  },
  "subagents-budget-and-failure": {
    script: {
      triage: [
        { toolCalls: [ask("billing", "All invoices"), ask("broken", "Go")] },
        { toolCalls: [{ name: "transfer_to_billing", arguments: {} }] },
        "Unreached.",
      ],
      billing: [...Array(4).fill({ toolCalls: [{ name: "lookup_invoice", arguments: { id: "1" } }] })],
      broken: [{ status: 401 }],
    },
    agents: (baseURL) => {
      const billing = testAgent("billing", baseURL, { tools: [lookup], budget: { maxTokens: 150 } });
      return testAgent("triage", baseURL, {
        tools: [billing.asTool(), testAgent("broken", baseURL).asTool()],
        handoffs: [{ agent: billing, inputFilter: (m) => m.filter((x) => x.role === "user") }],
        budget: { maxTokens: 400 },
      });
    },
  },
  "subagents-cancel": {
    script: {
      triage: [{ toolCalls: [ask("slow", "Wait")] }],
      slow: [async (request) => (await request.closed, "never")],
    },
    agents: (baseURL) => testAgent("triage", baseURL, { tools: [testAgent("slow", baseURL).asTool()] }),
    drive: async (handle) => {
      for await (const event of handle.stream())
        if (event.type === "trip.started" && event.agents?.at(-1) === "slow") break;
      await handle.cancel();
    },
  },
};

async function recordTree(
  name: string,
): Promise<{ histories: Array<{ file: string; workflowId: string; history: unknown }>; result: RunResult }> {
  const { script, agents, drive } = treeScenarios[name]!;
  const model = await startScriptedModel(byAgent(script), {
    usage: usageByAgent({ triage: 10, billing: 100, support: 1, closer: 1, lead: 1, manager: 1, worker: 1 }),
  });
  try {
    const root = agents(model.baseURL);
    return await withWorker(harness, [root], async ({ taskQueue }) => {
      const handle = await root.start("Help me", {
        client: harness.client,
        taskQueue,
        workflowId: `replay-${name}-${Date.now()}`,
      });
      await drive?.(handle);
      const result = await handle.result();
      const ids = [result.workflowId, ...childIds(result.trace)];
      const histories = [];
      for (const [i, id] of ids.entries()) {
        // Replayed under their own workflow ids: a child's id derives from its caller's.
        histories.push({
          file: i === 0 ? name : `${name}.child-${i}`,
          workflowId: id,
          history: JSON.parse(historyToJSON(await harness.client.workflow.getHandle(id).fetchHistory())),
        });
      }
      return { histories, result };
    });
  } finally {
    await model.close();
  }
}

function childIds(trace: RunResult["trace"]): string[] {
  return trace.flatMap((e) => (e.type === "subagent.finished" ? [e.workflowId, ...childIds(e.trace ?? [])] : []));
}

describe("replay", () => {
  it("fresh histories of multi-agent runs (callers and children) replay without a determinism error", async () => {
    const all = [];
    for (const name of Object.keys(treeScenarios)) {
      const { histories, result } = await recordTree(name);
      expect(histories.length).toBeGreaterThan(1);
      if (name === "subagents-cancel") expect(result.stopReason).toBe("cancelled");
      if (name === "subagents-budget-and-failure")
        expect(result).toMatchObject({
          stopReason: "budget",
          agent: "billing",
          toolCalls: [
            { status: "failed" },
            { status: "failed" },
            { name: "transfer_to_billing", status: "ok" },
            { status: "ok" },
            { status: "ok" },
          ],
        });
      all.push(...histories);
      // Multi-agent fixtures keep their workflow id beside the history: replaying under another id would derive other child ids.
      if (process.env.RECORD_FIXTURES)
        for (const { file, workflowId, history } of histories)
          writeFileSync(new URL(`${file}.json`, FIXTURES), JSON.stringify({ workflowId, history }, null, 1) + "\n");
    }
    expect(await replay(all)).toEqual([]);
  });

  it("fresh histories of every trip-loop path replay without a determinism error", async () => {
    const histories = [];
    const repromptKinds = new Set<string>();
    const stopReasons = new Map<string, string>();
    const firstAnswers = new Map<string, RunResult["trace"][number] | undefined>();
    for (const name of Object.keys(scenarios)) {
      const { history, result } = await record(name);
      firstAnswers.set(
        name,
        result.trace.find((e) => e.type === "model.answered"),
      );
      for (const event of result.trace) if (event.type === "reprompt") repromptKinds.add(event.kind);
      stopReasons.set(name, result.stopReason);
      histories.push({ workflowId: name, history });
      const change = process.env.RECORD_FIXTURES;
      if (change)
        writeFileSync(
          new URL(change === "1" ? `${name}.json` : `${name}.${change}.json`, FIXTURES),
          JSON.stringify(history, null, 1) + "\n",
        );
    }
    expect(histories).toHaveLength(Object.keys(scenarios).length);
    expect([...repromptKinds].sort()).toEqual(["act-when-asked", "backstop", "output-repair", "refusal-retry"]);
    expect(stopReasons.get("usage-budget")).toBe("budget");
    // A retried call's answer names its attempt; a first attempt's names none.
    expect(firstAnswers.get("streamed-text-retried")).toMatchObject({ trip: 1, attempt: 2 });
    expect(firstAnswers.get("streamed-text")).not.toHaveProperty("attempt");
    expect(await replay(histories)).toEqual([]);
  }, 240_000);

  it("committed fixtures of earlier versions still replay", async () => {
    const histories = committedFixtures();
    expect(histories.length).toBeGreaterThanOrEqual(Object.keys(scenarios).length);
    expect(await replay(histories)).toEqual([]);
  });

  it("search-attributes-cost-backstop: recorded before the cost and backstop attributes, none of their upserts; after, each behind its patch marker", () => {
    const read = (file: string) => {
      const json = JSON.parse(readFileSync(new URL(file, FIXTURES), "utf8")) as {
        events: Array<{
          upsertWorkflowSearchAttributesEventAttributes?: { searchAttributes?: { indexedFields?: object } };
        }>;
      };
      const upserts = json.events.flatMap((event) => {
        const fields = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
        return fields ? [Object.keys(fields).sort().join(",")] : [];
      });
      return { decoded: decodedHistory(historyFromJSON(json)), upserts };
    };
    const patches = ["durable-agent.cost-search-attribute", "durable-agent.backstop-search-attribute"];
    // A run in flight from before: its backstops ran and its model was priced, yet it upserted neither (it replays: see above).
    const before = read("search-attributes-cost-backstop.json");
    for (const patch of patches) expect(before.decoded).not.toContain(patch);
    expect(before.decoded).toMatch(/"name":\s*"backstop\.run"/);
    expect(before.upserts.filter((keys) => keys === "DurableAgentTokens")).toHaveLength(2);
    expect(before.upserts.some((keys) => /CostUsd|BackstopRan/.test(keys))).toBe(false);
    const after = read("search-attributes-cost-backstop.cost-backstop-attributes.json");
    for (const patch of patches) expect(after.decoded).toContain(patch);
    expect(after.upserts.filter((keys) => keys === "DurableAgentBackstopRan")).toHaveLength(1);
    expect(after.upserts.filter((keys) => keys === "DurableAgentCostUsd,DurableAgentTokens")).toHaveLength(2);
  });

  it("model-call timeouts: a spec recorded before them gives model calls the agent's heartbeat (5 s) and a 1 s retry; after, model calls have their own 2.5 s and a 200 ms retry, tools keep 5 s and 1 s (each replays: see above)", () => {
    const scheduled = (file: string) => {
      const json = JSON.parse(readFileSync(new URL(file, FIXTURES), "utf8")) as {
        events: Array<{
          activityTaskScheduledEventAttributes?: {
            activityType: { name: string };
            heartbeatTimeout?: string;
            retryPolicy?: { initialInterval?: string };
          };
        }>;
      };
      const byType = new Map<string, string>();
      for (const { activityTaskScheduledEventAttributes: a } of json.events)
        if (a) byType.set(a.activityType.name, `${a.heartbeatTimeout} ${a.retryPolicy?.initialInterval}`);
      return Object.fromEntries(byType);
    };
    // Replaying these, the workflow takes the model call's options from the recorded spec: it sends the same commands as at the time.
    expect(scheduled("tool-call.trip-promises.json")).toEqual({ "model.call": "5s 1s", "tool.execute": "5s 1s" });
    expect(scheduled("tool-call.model-call-timeouts.json")).toEqual({
      "model.call": "2.500s 0.200s",
      "tool.execute": "5s 1s",
    });
    expect(scheduled("streamed-text.model-call-timeouts.json")).toEqual({
      "model.call": "2.500s 0.200s",
      "tool.execute": "5s 1s",
    });
  });

  it("session-first-task-split: the agent's description ended one workflow task and the first message began the next (a query came in the first); the session took its patches at its start, and replays", async () => {
    const read = (url: URL) => {
      const json = JSON.parse(readFileSync(url, "utf8")) as { events: Array<{ eventType: string }> };
      // The workflow task each event's command was recorded in (counting completed tasks).
      let task = 0;
      const tasks = json.events.map((event) => (event.eventType.endsWith("WORKFLOW_TASK_COMPLETED") ? ++task : task));
      const taskOf = (pattern: RegExp) => tasks[json.events.findIndex((event) => pattern.test(JSON.stringify(event)))];
      return { json, taskOf };
    };
    const split = (taskOf: (pattern: RegExp) => number | undefined) => ({
      description: taskOf(/core_local_activity/),
      memo: taskOf(/WORKFLOW_PROPERTIES_MODIFIED/),
    });
    // After: the patches' marker is in the first task, the description's marker too, the first message's memo in the next.
    const after = read(new URL("session-first-task-split.session-patches-at-start.json", FIXTURES));
    expect(split(after.taskOf)).toEqual({ description: 1, memo: 2 });
    expect(decodedHistory(historyFromJSON(after.json))).toContain("durable-agent.session-patches-at-start");
    // Before (a run of the code that asked the memo patch per message): the same split put its marker in the second
    // task, where a replay, which takes the description's result in the first, does not ask for it. It cannot replay.
    const before = read(new URL("../histories-before-fix/session-first-task-split.json", FIXTURES));
    expect(split(before.taskOf)).toEqual({ description: 1, memo: 2 });
    const failures = await replay([{ workflowId: "before", history: before.json }]);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/Non-deprecated patch marker encountered for change durable-agent\.session-list-memo/);
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

describe("replay of tool.execute's tagged outcomes", () => {
  it("a run with an approval, a sub-agent call and a handoff records each tool.execute result by its kind; the records carry no tag; it replays", async () => {
    const model = await startScriptedModel(
      byAgent({
        triage: [
          { toolCalls: [{ name: "refund", arguments: { amount: 42 } }, ask("billing", "Invoice 7?")] },
          { toolCalls: [{ name: "transfer_to_closer", arguments: {} }] },
        ],
        billing: [{ toolCalls: [{ name: "lookup_invoice", arguments: { id: "7" } }] }, "Invoice 7 is $42."],
        closer: ["All sorted."],
      }),
    );
    const billing = testAgent("billing", model.baseURL, { tools: [lookup] });
    const closer = {
      agent: testAgent("closer", model.baseURL),
      inputFilter: (m: Message[]) => m.filter((x) => x.role === "user"),
    };
    const root = testAgent("triage", model.baseURL, { tools: [refund, billing.asTool()], handoffs: [closer] });
    try {
      const { result, histories } = await withWorker(harness, [root], async ({ taskQueue }) => {
        const handle = await root.start("Help me", {
          client: harness.client,
          taskQueue,
          workflowId: `replay-tool-outcomes-${Date.now()}`,
        });
        for await (const event of handle.stream())
          if (event.type === "approval" && event.outcome === "requested") break;
        await handle.approve((await handle.pendingApprovals())[0]!.callId);
        const result = await handle.result();
        const ids = [result.workflowId, ...childIds(result.trace)];
        const histories = [];
        for (const id of ids)
          histories.push({
            workflowId: id,
            history: JSON.parse(historyToJSON(await harness.client.workflow.getHandle(id).fetchHistory())),
          });
        return { result, histories };
      });
      expect(result).toMatchObject({ stopReason: "answered", agent: "closer", reply: "All sorted." });
      expect(result.toolCalls.map(({ name, status }) => `${name} ${status}`)).toEqual([
        "refund ok",
        "billing ok",
        "transfer_to_closer ok",
      ]);
      for (const call of result.toolCalls) expect(call).not.toHaveProperty("kind");
      const [caller, child] = histories.map(({ history }) => toolExecuteShapes(history).sort());
      expect(caller).toEqual(["approval-required", "handoff", "result", "sub-agent"]);
      expect(child).toEqual(["result"]);
      expect(await replay(histories)).toEqual([]);
      if (process.env.RECORD_FIXTURES) {
        for (const [i, { workflowId, history }] of histories.entries()) {
          const file = i === 0 ? "tool-outcomes-tagged" : `tool-outcomes-tagged.child-${i}`;
          writeFileSync(new URL(`${file}.json`, FIXTURES), JSON.stringify({ workflowId, history }, null, 1) + "\n");
        }
      }
    } finally {
      await model.close();
    }
  });

  it("the committed fixtures hold tool.execute results of every shape, tagged and untagged (and replay: see above)", () => {
    const shapes = new Set(committedFixtures().flatMap(({ history }) => toolExecuteShapes(history)));
    expect([...shapes].sort()).toEqual([
      "approval-required",
      "handoff",
      "remote",
      "result",
      "sub-agent",
      "untagged approvalRequired",
      "untagged handoff",
      "untagged result",
      "untagged subAgentCall",
    ]);
  });
});

describe("replay of runs with MCP tools", () => {
  const names = (tools: unknown) => (tools as Array<{ function: { name: string } }>).map((t) => t.function.name);

  it("a server that changes its tools between two trips changes nothing for the run; its history replays after the change", async () => {
    const http = await startHttpMcpServer();
    const gym = ai.mcp({ name: "gym", url: http.url });
    const model = await startScriptedModel([
      { toolCalls: [{ name: "add_tool", arguments: { name: "new_tool" } }] },
      { toolCalls: [{ name: "new_tool" }] },
      "Done.",
      { toolCalls: [{ name: "new_tool" }] },
      "Done again.",
    ]);
    const agent = ai.agent({
      name: "replay-mcp",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [gym],
    });
    try {
      const { first, second, history } = await withWorker(harness, [agent], async ({ taskQueue }) => {
        const handle = await agent.start("Add a tool", {
          client: harness.client,
          taskQueue,
          workflowId: `replay-mcp-list-changed-${Date.now()}`,
        });
        const first = await handle.result();
        const history = JSON.parse(historyToJSON(await handle.workflow.fetchHistory()));
        const second = await agent.run("Use it", { client: harness.client, taskQueue });
        return { first, second, history };
      });
      // Trip 2 of the first run still offered the list taken at its start, and new_tool was not one of the run's tools.
      expect(names(model.requests[1]!.body.tools)).toEqual(names(model.requests[0]!.body.tools));
      expect(names(model.requests[0]!.body.tools)).not.toContain("new_tool");
      expect(first.toolCalls).toMatchObject([
        { name: "add_tool", status: "ok", output: { content: [{ text: "added new_tool" }] } },
        {
          name: "new_tool",
          status: "refused",
          reason: expect.stringMatching(/^Unknown tool "new_tool"\. Available tools: lookup_exercise, /),
        },
      ]);
      // A new run lists the tools afresh and may call the new one.
      expect(names(model.requests[3]!.body.tools)).toContain("new_tool");
      expect(second.toolCalls).toMatchObject([
        { name: "new_tool", status: "ok", source: "mcp:gym", output: { content: [{ text: "new_tool ran" }] } },
      ]);
      // Replayed after the change (the server now lists new_tool): no determinism error.
      expect(await replay([{ workflowId: "mcp-list-changed", history }])).toEqual([]);
      if (process.env.RECORD_FIXTURES)
        writeFileSync(new URL("mcp-list-changed.json", FIXTURES), JSON.stringify(history, null, 1) + "\n");
    } finally {
      await gym.close();
      await http.close();
      await model.close();
    }
  });

  it("a run with MCP calls of every outcome beside an ai.tool replays", async () => {
    const http = await startHttpMcpServer();
    const gym = ai.mcp({ name: "gym", url: http.url, prefix: true, timeout: "300 milliseconds" });
    const model = await startScriptedModel([
      {
        toolCalls: [
          { name: "gym__lookup_exercise", arguments: { name: "lunges" } },
          { name: "gym__locked_plan" },
          { name: "gym__lookup_exercise", arguments: { name: 7 } },
          { name: "gym__wait_forever" },
          { name: "update_plan", arguments: { from: "squats", to: "lunges" } },
        ],
      },
      "Done.",
    ]);
    const agent = ai.agent({
      name: "replay-mcp",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [gym, updatePlan],
    });
    try {
      const { result, history } = await withWorker(harness, [agent], async ({ taskQueue }) => {
        const handle = await agent.start("Swap squats", {
          client: harness.client,
          taskQueue,
          workflowId: `replay-mcp-calls-${Date.now()}`,
        });
        return {
          result: await handle.result(),
          history: JSON.parse(historyToJSON(await handle.workflow.fetchHistory())),
        };
      });
      expect(result.toolCalls.map((c) => c.status)).toEqual(["ok", "refused", "refused", "failed", "ok"]);
      expect(await replay([{ workflowId: "mcp-calls", history }])).toEqual([]);
      if (process.env.RECORD_FIXTURES)
        writeFileSync(new URL("mcp-calls.json", FIXTURES), JSON.stringify(history, null, 1) + "\n");
    } finally {
      await gym.close();
      await http.close();
      await model.close();
    }
  });
});
