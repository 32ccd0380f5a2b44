/**
 * Continue-as-new crossed several times mid-run, on a dev server whose suggestion threshold is
 * lowered to 40 history events: nothing about the contract, the stream or the result changes.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { NativeConnection } from "@temporalio/worker";
import type { Client } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { ai, type Agent, type Backstop, type StreamedRunEvent } from "../src/index.js";
import { startScriptedModel, type DevServer, type ScriptedTurn } from "../src/testing/index.js";
import { startContinueAsNewServer } from "./support/continue-as-new-server.js";
import { createAgentWorker } from "../src/worker.js";
import { swap, updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, type Harness } from "./support/harness.js";
import { historyEvents, runChain } from "./support/history-helpers.js";
import { startHttpMcpServer } from "./fixtures/mcp/http-server.js";

let harness: Harness;
let server: DevServer;
let connection: NativeConnection;
let client: Client;
beforeAll(async () => {
  harness = await connectHarness(); // installs the quiet runtime
  ({ server, connection, client } = await startContinueAsNewServer());
});
afterAll(async () => {
  await connection?.close();
  await server?.stop();
  await harness.close();
});

async function withCanWorker<T>(agents: Agent[], fn: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `can-${randomUUID()}`;
  const worker = await createAgentWorker({
    agents,
    connection,
    taskQueue,
    workflowBundle: { codePath: inject("workflowBundlePath") },
  });
  return worker.runUntil(fn(taskQueue));
}

const logTool = ai.tool({ name: "log", input: z.object({ n: z.number() }), execute: async ({ n }) => ({ logged: n }) });
const logTrips = (from: number, count: number): ScriptedTurn[] =>
  Array.from({ length: count }, (_v, i) => ({ toolCalls: [{ name: "log", arguments: { n: from + i } }] }));

describe("continue-as-new", () => {
  it("crossed several times mid-run: budgets, pending refusals, backstops that ran and their shared state, and the stream carry over", async () => {
    const effects: string[] = [];
    const backstops: Backstop[] = [
      {
        name: "injury",
        phase: "before",
        detect: (t) => /hurt/.test(t.input),
        run: ({ state }) => {
          effects.push("injury");
          state.injury = "knee";
          return { prompt: "Mind the knee." };
        },
      },
      {
        name: "audit",
        detect: (t) => t.reply === "AUDIT",
        run: ({ state }) => {
          effects.push("audit");
          return { prompt: `Audit: injury=${String(state.injury)}` };
        },
      },
    ];
    const script: ScriptedTurn[] = [
      swap("moonwalks"), // trip 1: refused; the refusal stays pending across the boundaries below
      ...logTrips(1, 10), // trips 2-11
      "Sorry.", // trip 12: refusal retry
      "Want me to swap it?", // trip 13: actWhenAsked re-prompt (its one)
      ...logTrips(11, 6), // trips 14-19
      "AUDIT", // trip 20: the after backstop, reading state set before the first boundary
      "Want me to?", // trip 21: actWhenAsked's budget is spent, so the run ends
    ];
    const model = await startScriptedModel(script);
    const agent = ai.agent({
      name: "can-coach",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [updatePlanTool(), logTool],
      maxTrips: 30,
      onToolRefusal: "retry-once-with-hint",
      actWhenAsked: { intents: ["swap"], requiredTools: ["update_plan"] },
      backstops,
    });
    const { result, events, chain } = await withCanWorker([agent], async (taskQueue) => {
      const handle = await agent.start("I hurt my knee; swap squats", { client, taskQueue, streamText: true });
      const firstRunId = (await handle.workflow.describe()).runId;
      const events: StreamedRunEvent[] = [];
      for await (const event of handle.stream()) events.push(event);
      return { result: await handle.result(), events, chain: await runChain(client, handle.workflowId, firstRunId) };
    });
    await model.close();

    expect(chain.length).toBeGreaterThanOrEqual(4);
    expect(result).toMatchObject({ stopReason: "answered", trips: 21, reply: "Want me to?" });
    expect(effects).toEqual(["injury", "audit"]);
    expect(result.trace.filter((e) => e.type === "reprompt").map((e) => [e.trip, e.kind, e.text.slice(0, 40)])).toEqual(
      [
        [12, "refusal-retry", expect.stringContaining("`update_plan` tool refused")],
        [13, "act-when-asked", expect.stringContaining("You answered without making")],
        [20, "backstop", "Audit: injury=knee"],
      ],
    );
    expect(result.messages).toHaveLength(1 + 1 + 17 * 2 + 4 + 3); // input, before prompt, 17 tool trips, 4 answers, 3 re-prompts
    expect(result.toolCalls).toHaveLength(17);
    // the stream: consecutive offsets of its durable events across every boundary, every trip, ending
    // with the result (a text delta carries the offset of the durable event before it)
    const durable = events.filter((e) => e.type !== "text.delta");
    expect(durable.map((e) => e.offset)).toEqual(durable.map((_e, i) => i));
    events.forEach((e, i) => {
      if (e.type === "text.delta")
        expect(e.offset).toBe(events.slice(0, i).findLast((d) => d.type !== "text.delta")?.offset);
    });
    expect(events.filter((e) => e.type === "trip.started").map((e) => (e as { trip: number }).trip)).toEqual(
      Array.from({ length: 21 }, (_v, i) => i + 1),
    );
    expect(events.at(-1)).toMatchObject({ type: "run.finished", result: { trips: 21 } });
  }, 120_000);

  it("usage and the budget carry over: failed attempts included, the run stops where the budget says, not later", async () => {
    // Every answer reports 10 tokens; the fifth request is cut off after reporting 5 (a failed attempt, retried).
    const cut =
      'data: {"id":"c","created":1,"model":"m","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"half"},"finish_reason":null}]}\n\n' +
      'data: {"id":"c","created":1,"model":"m","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":4,"completion_tokens":1,"total_tokens":5}}\n\n';
    const model = await startScriptedModel(
      ({ index }) =>
        index === 4 ? { raw: cut, hangUp: true } : { toolCalls: [{ name: "log", arguments: { n: index } }] },
      {
        usage: { prompt_tokens: 8, completion_tokens: 2 },
      },
    );
    const agent = ai.agent({
      name: "can-budget",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [logTool],
      maxTrips: 30,
      budget: { maxTokens: 155 },
    });
    const { result, chain } = await withCanWorker([agent], async (taskQueue) => {
      const handle = await agent.start("Log until the budget says stop", { client, taskQueue });
      const firstRunId = (await handle.workflow.describe()).runId;
      return { result: await handle.result(), chain: await runChain(client, handle.workflowId, firstRunId) };
    });
    await model.close();
    expect(chain.length).toBeGreaterThanOrEqual(3);
    // 10 per trip + 5 failed: 155 after trip 15
    expect(result).toMatchObject({ stopReason: "budget", trips: 15 });
    expect(result.usage).toEqual({
      inputTokens: 124,
      outputTokens: 31,
      totalTokens: 155,
      modelCalls: 16,
      failedAttempts: { inputTokens: 4, outputTokens: 1, totalTokens: 5, attempts: 1 },
    });
    expect(model.requests).toHaveLength(16);
  }, 120_000);

  it("state too large to carry in one payload (incompressible tool outputs) is loaded by the new run in pages", async () => {
    const blob = ai.tool({
      name: "blob",
      input: z.object({}),
      execute: async () => ({ data: randomBytes(600 * 1024).toString("base64") }),
    });
    const model = await startScriptedModel([...Array(4).fill({ toolCalls: [{ name: "blob" }] }), "Got them."]);
    const agent = ai.agent({
      name: "can-blobs",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [blob],
    });
    const { result, loads, chain } = await withCanWorker([agent], async (taskQueue) => {
      const handle = await agent.start("Fetch the blobs", { client, taskQueue });
      const firstRunId = (await handle.workflow.describe()).runId;
      const result = await handle.result();
      const events = await historyEvents(client, handle.workflowId, result.runId);
      const loads = events.filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === "run.load",
      ).length;
      return { result, loads, chain: await runChain(client, handle.workflowId, firstRunId) };
    });
    await model.close();
    expect(chain.length).toBeGreaterThan(1);
    expect(loads).toBeGreaterThan(1);
    expect(result).toMatchObject({ stopReason: "answered", trips: 5, reply: "Got them." });
    expect(result.toolCalls).toHaveLength(4);
    expect(
      result.toolCalls.every((c) => c.status === "ok" && (c.output as { data: string }).data.length > 400_000),
    ).toBe(true);
  }, 120_000);
});

describe("MCP tools across continue-as-new", () => {
  it("the run's MCP tool list is carried: listed once for the whole chain, unchanged when the server changes its tools", async () => {
    const http = await startHttpMcpServer();
    const gym = ai.mcp({ name: "gym", url: http.url });
    const lookups: ScriptedTurn[] = Array.from({ length: 8 }, () => ({
      toolCalls: [{ name: "lookup_exercise", arguments: { name: "lunges" } }],
    }));
    const model = await startScriptedModel([
      { toolCalls: [{ name: "add_tool", arguments: { name: "new_tool" } }] },
      ...lookups,
      { toolCalls: [{ name: "new_tool" }] },
      "Done.",
    ]);
    const agent = ai.agent({
      name: "can-mcp",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [gym],
      maxTrips: 20,
    });
    try {
      const { result, lists, chain } = await withCanWorker([agent], async (taskQueue) => {
        const handle = await agent.start("Add a tool, then look things up", { client, taskQueue });
        const firstRunId = (await handle.workflow.describe()).runId;
        const result = await handle.result();
        const chain = await runChain(client, handle.workflowId, firstRunId);
        let lists = 0;
        for (const runId of chain)
          lists += (await historyEvents(client, handle.workflowId, runId)).filter(
            (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === "mcp.list",
          ).length;
        return { result, lists, chain };
      });
      expect(chain.length).toBeGreaterThan(1);
      expect(lists).toBe(1);
      expect(result).toMatchObject({ stopReason: "answered", trips: 11, reply: "Done." });
      expect(result.toolCalls.slice(0, 9).every((c) => c.status === "ok" && c.source === "mcp:gym")).toBe(true);
      expect(result.toolCalls.at(-1)).toMatchObject({
        name: "new_tool",
        status: "refused",
        reason: expect.stringMatching(/^Unknown tool "new_tool"/),
      });
      const names = (i: number) =>
        (model.requests[i]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
      for (let i = 1; i < model.requests.length; i++) expect(names(i)).toEqual(names(0));
    } finally {
      await gym.close();
      await http.close();
      await model.close();
    }
  }, 120_000);
});

describe("sessions across continue-as-new", () => {
  it("a session of 200 messages crosses continue-as-new and keeps its whole conversation", async () => {
    const model = await startScriptedModel((request) => `echo ${String(request.body.messages.at(-1)!.content)}`, {
      usage: { prompt_tokens: 2, completion_tokens: 1 },
    });
    const agent = ai.agent({ name: "can-session", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const { replies, history, chain, perMessage, summary } = await withCanWorker([agent], async (taskQueue) => {
      const session = agent.session(`long-${Date.now()}`, { client, taskQueue });
      const replies: string[] = [];
      const perMessage = new Set<number | undefined>();
      for (let i = 0; i < 200; i++) {
        const result = await session.send(`m${i}`);
        replies.push(result.reply);
        perMessage.add(result.usage?.totalTokens);
      }
      const history = await session.history();
      const firstRunId = (await client.workflow.getHandle(session.workflowId).describe()).raw.workflowExecutionInfo!
        .firstRunId!;
      const chain = await runChain(client, session.workflowId, firstRunId);
      await session.end();
      return {
        replies,
        history,
        chain,
        perMessage,
        summary: await client.workflow.getHandle(session.workflowId).result(),
      };
    });
    // usage per message, and for the whole session across every boundary
    expect([...perMessage]).toEqual([3]);
    expect(summary).toMatchObject({
      usage: { inputTokens: 400, outputTokens: 200, totalTokens: 600, modelCalls: 200 },
    });
    await model.close();
    expect(replies).toEqual(Array.from({ length: 200 }, (_v, i) => `echo m${i}`));
    expect(history).toHaveLength(400);
    expect(history.filter((m) => m.role === "user").map((m) => m.content)).toEqual(
      Array.from({ length: 200 }, (_v, i) => `m${i}`),
    );
    expect(chain.length).toBeGreaterThan(10);
    // every model call saw the whole conversation before it, across every boundary
    expect(model.requests.map((r) => r.body.messages.length)).toEqual(
      Array.from({ length: 200 }, (_v, i) => 2 * i + 1),
    );
  }, 180_000);
});

describe("a streamed session across continue-as-new", () => {
  it("one subscriber follows a streamed session through several continue-as-new: every durable event once, in order, and each answer's deltas add up to it", async () => {
    const replyOf = (message: string) => `Answer to ${message}: ` + "lunges, not squats. ".repeat(12);
    const model = await startScriptedModel((request) => replyOf(String(request.body.messages.at(-1)!.content)), {
      chunkSize: 4,
      chunksPerSecond: 400,
    });
    const agent = ai.agent({ name: "can-stream-session", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const messages = Array.from({ length: 60 }, (_v, i) => `m${i}`);
    const { events, chain } = await withCanWorker([agent], async (taskQueue) => {
      const session = agent.session(`stream-${randomUUID()}`, { client, taskQueue, streamText: true });
      await session.send(messages[0]!);
      const handle = await ai.getRun(session.workflowId, { client });
      const events: StreamedRunEvent[] = [];
      const reading = (async () => {
        for await (const event of handle.stream()) {
          events.push(event);
          if (event.type === "run.stopped" && event.trip === messages.length) break; // the last message's answer
        }
      })();
      for (const message of messages.slice(1)) await session.send(message);
      await reading;
      const firstRunId = (await client.workflow.getHandle(session.workflowId).describe()).raw.workflowExecutionInfo!
        .firstRunId!;
      const chain = await runChain(client, session.workflowId, firstRunId);
      await session.end();
      return { events, chain };
    });
    await model.close();
    expect(chain.length).toBeGreaterThan(5);
    const durable = events.filter((e) => e.type !== "text.delta");
    expect(durable.map((e) => e.offset)).toEqual(durable.map((_e, i) => i));
    expect(durable.filter((e) => e.type === "model.answered").map((e) => e.trip)).toEqual(
      messages.map((_m, i) => i + 1),
    );
    for (const [i, message] of messages.entries()) {
      const text = events
        .filter(
          (e): e is Extract<StreamedRunEvent, { type: "text.delta" }> => e.type === "text.delta" && e.trip === i + 1,
        )
        .map((e) => e.text)
        .join("");
      expect(text).toBe(replyOf(message));
    }
    // the messages after the subscriber attached streamed as they were produced, not only whole
    expect(events.filter((e) => e.type === "text.delta" && e.trip === messages.length).length).toBeGreaterThan(1);
  }, 120_000);
});
