/**
 * Issue 41, item 4: the habits an AI SDK user brings. Tools from the AI SDK's `tool()` in a tools
 * record (zod or `jsonSchema()` input, run as activities), provider-defined tools passed through to
 * the model call, the AI SDK's setting names, a missing API key, an error event mid-stream, and a
 * setting the provider drops caught before the request. Against the scripted Anthropic server.
 */
import { anthropic } from "@ai-sdk/anthropic";
import { jsonSchema, tool } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, AgentOptionsError, ModelApiError, type RunResult, type StreamedRunEvent } from "../src/index.js";
import { startScriptedAnthropic, type ScriptedAnthropic, type ScriptedProviderTurn } from "../src/testing/index.js";
import { conversationOf } from "../src/studio/server/conversation.js";
import { forkPrefix } from "../src/fork/fork-prefix.js";
import { assistantBlocks, claude, thinkingClaude } from "./support/ai-sdk-helpers.js";
import { replaysAndKeeps } from "./support/history-helpers.js";
import { messageOf, readUIStream } from "./support/ui-stream-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

async function onClaude<T>(script: ScriptedProviderTurn[], fn: (server: ScriptedAnthropic) => Promise<T>): Promise<T> {
  const server = await startScriptedAnthropic(script, { chunkSize: 6 });
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

async function run(agent: ReturnType<typeof ai.agent>, input: string): Promise<RunResult> {
  return withWorker(harness, [agent], ({ taskQueue }) => agent.run(input, { client: harness.client, taskQueue }));
}

const thrown = (fn: () => unknown): AgentOptionsError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof AgentOptionsError) return error;
    throw error;
  }
  throw new Error("did not throw");
};

describe("tools of the AI SDK", () => {
  it("a tools record with the AI SDK's tool() (zod and jsonSchema() input) runs each call as an activity, validated", async () => {
    const seen: Array<{ input: unknown; toolCallId: unknown; aborts: boolean }> = [];
    const agent = ai.agent({
      name: "habits-sdk-tools",
      model: ai.model(claude("http://unused")),
      tools: {
        update_plan: tool({
          description: "Swap an exercise in the plan.",
          inputSchema: z.object({ from: z.string(), to: z.string() }),
          execute: async (input, options) => {
            seen.push({ input, toolCallId: options.toolCallId, aborts: options.abortSignal instanceof AbortSignal });
            return { ok: true, swapped: input };
          },
        }),
        weigh: tool({
          description: "Weigh a lift.",
          inputSchema: jsonSchema<{ kg: number }>({
            type: "object",
            properties: { kg: { type: "number" } },
            required: ["kg"],
          }),
          execute: async ({ kg }) => ({ pounds: Math.round(kg * 2.2) }),
        }),
      },
    });
    const result = await onClaude(
      [
        {
          toolCalls: [
            { name: "update_plan", arguments: { from: "squats", to: "lunges" } },
            { name: "weigh", arguments: { kg: "heavy" } },
          ],
        },
        { toolCalls: [{ name: "weigh", arguments: { kg: 100 } }] },
        "Done: lunges, and 100 kg is 220 lb.",
      ],
      async (server) => {
        const onServer = ai.agent({ ...agent.options, model: ai.model(claude(server.baseURL)) });
        const result = await run(onServer, "Swap squats for lunges and weigh 100 kg.");
        const offered = server.requests[0]!.body.tools!.map((t) => [t.name, t.input_schema]);
        expect(offered).toEqual([
          [
            "update_plan",
            expect.objectContaining({ properties: { from: { type: "string" }, to: { type: "string" } } }),
          ],
          ["weigh", { type: "object", properties: { kg: { type: "number" } }, required: ["kg"] }],
        ]);
        return result;
      },
    );
    expect(result.reply).toBe("Done: lunges, and 100 kg is 220 lb.");
    expect(result.toolCalls.map((c) => [c.name, c.status])).toEqual([
      ["update_plan", "ok"],
      ["weigh", "refused"], // "heavy" is no number: refused by the jsonSchema() before execute
      ["weigh", "ok"],
    ]);
    expect(result.toolCalls[2]!.output).toEqual({ pounds: 220 });
    expect(seen).toEqual([
      { input: { from: "squats", to: "lunges" }, toolCallId: result.toolCalls[0]!.id, aborts: true },
    ]);
  }, 60_000);

  it("a provider tool (Anthropic's web search) goes to the provider with the call, under its record key", async () => {
    const result = await onClaude(["Lunges: see the search results."], async (server) => {
      const agent = ai.agent({
        name: "habits-provider-tool",
        model: ai.model(claude(server.baseURL)),
        tools: { web_search: anthropic.tools.webSearch_20250305({ maxUses: 2 }) },
      });
      const result = await run(agent, "Find a squat alternative.");
      expect(server.requests[0]!.body.tools).toEqual([
        expect.objectContaining({ type: "web_search_20250305", name: "web_search", max_uses: 2 }),
      ]);
      return result;
    });
    expect(result.reply).toBe("Lunges: see the search results.");
  }, 60_000);

  it("a provider tool's calls are recorded like any call (provider: true): not run by a worker, sent back with their answer, in the trace, the UI stream, the studio and a fork (fixture ai-sdk-provider-calls)", async () => {
    const ran: unknown[] = [];
    const found = [{ url: "https://example.com/lunges", title: "Lunges for bad knees", pageAge: "2 days ago" }];
    const script: ScriptedProviderTurn[] = [
      {
        reasoning: { text: "Search first, then swap." },
        webSearches: [{ id: "srvtoolu_1", query: "squat alternative bad knees", results: found }],
        toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }],
      },
      {
        webSearches: [{ id: "srvtoolu_2", query: "lunge load", results: { errorCode: "max_uses_exceeded" } }],
        text: "Swapped squats for lunges.",
      },
    ];
    // The same answers twice: the first run asks with doGenerate (no streamText), the second with doStream.
    const { result, requests, toolActivities, events, chunks, streamed } = await onClaude(
      [...script, ...script],
      async (server) => {
        const agent = ai.agent({
          name: "habits-provider-calls",
          model: thinkingClaude(server.baseURL),
          tools: {
            web_search: anthropic.tools.webSearch_20250305({ maxUses: 2 }),
            update_plan: tool({
              inputSchema: z.object({ from: z.string(), to: z.string() }),
              execute: async (input) => {
                ran.push(input);
                return { ok: true };
              },
            }),
          },
        });
        return withWorker(harness, [agent], async ({ taskQueue }) => {
          const handle = await agent.start("Find a squat alternative and swap it in.", {
            client: harness.client,
            taskQueue,
          });
          const result = await handle.result();
          const { events: history } = await handle.workflow.fetchHistory();
          const toolActivities = (history ?? []).filter(
            (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === "tool.execute",
          ).length;
          const events: StreamedRunEvent[] = [];
          for await (const event of handle.stream()) events.push(event);
          const { chunks } = await readUIStream(handle.toUIMessageStreamResponse());
          await replaysAndKeeps(handle, "ai-sdk-provider-calls");
          const again = await agent.start("Find a squat alternative and swap it in.", {
            client: harness.client,
            taskQueue,
            streamText: true,
          });
          const streamed = await again.result();
          return { result, requests: server.requests, toolActivities, events, chunks, streamed };
        });
      },
    );
    expect(result.reply).toBe("Swapped squats for lunges.");
    // Recorded like any call, marked as the provider's; only update_plan ran on a worker.
    expect(result.toolCalls).toEqual([
      {
        id: "srvtoolu_1",
        name: "web_search",
        input: { query: "squat alternative bad knees" },
        output: [
          {
            url: found[0]!.url,
            title: found[0]!.title,
            pageAge: "2 days ago",
            encryptedContent: "scripted-encrypted-0-0-0",
            type: "web_search_result",
          },
        ],
        status: "ok",
        trip: 1,
        provider: true,
      },
      expect.objectContaining({ name: "update_plan", status: "ok", trip: 1 }),
      {
        id: "srvtoolu_2",
        name: "web_search",
        input: { query: "lunge load" },
        status: "failed",
        error: JSON.stringify({ type: "web_search_tool_result_error", errorCode: "max_uses_exceeded" }),
        trip: 2,
        provider: true,
      },
    ]);
    const providerCalls = (run: RunResult) => run.toolCalls.filter((call) => call.provider);
    expect(providerCalls(streamed)).toEqual(
      providerCalls(result).map((call) =>
        Array.isArray(call.output)
          ? { ...call, output: [{ ...call.output[0], encryptedContent: "scripted-encrypted-2-0-0" }] }
          : call,
      ),
    );
    expect(ran).toEqual([
      { from: "squats", to: "lunges" },
      { from: "squats", to: "lunges" },
    ]);
    expect(toolActivities).toBe(1);
    expect(result.trace.filter((e) => e.type === "approval")).toEqual([]);
    expect(
      result.trace.filter((e) => e.type === "tool.finished").map((e) => [e.trip, e.tool, e.status, e.provider]),
    ).toEqual([
      [1, "web_search", "ok", true],
      [1, "update_plan", "ok", undefined],
      [2, "web_search", "failed", true],
    ]);
    // The answer keeps them, and they go back to Anthropic with it, before its tool use.
    const answer = result.messages.find((m) => m.role === "assistant")!;
    expect(answer.role === "assistant" && answer.providerToolCalls?.map((c) => c.id)).toEqual(["srvtoolu_1"]);
    const [sent] = assistantBlocks(requests[1]!.body);
    expect(sent!.map((b) => b.type)).toEqual(["thinking", "server_tool_use", "web_search_tool_result", "tool_use"]);
    expect(sent![1]).toMatchObject({
      id: "srvtoolu_1",
      name: "web_search",
      input: { query: "squat alternative bad knees" },
    });
    expect(sent![2]).toMatchObject({
      tool_use_id: "srvtoolu_1",
      content: [{ type: "web_search_result", url: found[0]!.url, encrypted_content: "scripted-encrypted-0-0-0" }],
    });
    // stream() has them as tool.finished events; the UI stream as provider-executed tool parts.
    expect(
      events.filter((e) => e.type === "tool.finished" && e.provider).map((e) => e.type === "tool.finished" && e.callId),
    ).toEqual(["srvtoolu_1", "srvtoolu_2"]);
    const parts = (await messageOf(chunks)).parts.filter((p) => p.type === "tool-web_search");
    expect(parts).toEqual([
      expect.objectContaining({
        toolCallId: "srvtoolu_1",
        state: "output-available",
        providerExecuted: true,
        input: { query: "squat alternative bad knees" },
      }),
      expect.objectContaining({ toolCallId: "srvtoolu_2", state: "output-error", providerExecuted: true }),
    ]);
    // The studio's conversation shows them where they ran; a fork from trip 2 starts with trip 1's.
    const items = conversationOf(result.workflowId, result.messages, result.toolCalls, result.trace, {
      model: new Map(),
      tools: new Map(),
    });
    expect(
      items.filter((i) => i.type === "tool-call").map((i) => i.type === "tool-call" && [i.tool, i.status, i.runsOn]),
    ).toEqual([
      ["web_search", "ok", "run by the model's provider"],
      ["update_plan", "ok", undefined],
      ["web_search", "failed", "run by the model's provider"],
    ]);
    const { fork, messages } = forkPrefix(result, 2, "Find a squat alternative and swap it in.");
    expect(fork.toolCalls.map((c) => [c.name, c.provider])).toEqual([
      ["web_search", true],
      ["update_plan", undefined],
    ]);
    expect(messages.some((m) => m.role === "assistant" && m.providerToolCalls?.[0]?.id === "srvtoolu_1")).toBe(true);
  }, 60_000);

  it("a provider tool's id and arguments are part of agent.version", () => {
    const model = ai.model(claude("http://unused"));
    const version = (maxUses: number) =>
      ai.agent({ name: "v", model, tools: { web_search: anthropic.tools.webSearch_20250305({ maxUses }) } }).version;
    expect(version(2)).toBe(version(2));
    expect(version(2)).not.toBe(version(3));
  });

  it("are refused where they cannot work, naming what to do", () => {
    const search = anthropic.tools.webSearch_20250305({});
    expect(
      thrown(() => ai.agent({ name: "a", model: ai.openai("gpt-test"), tools: { web_search: search } })).message,
    ).toMatch(/provider tool \(anthropic\.web_search_20250305\).*AI SDK model/);
    const swap = tool({ inputSchema: z.object({ to: z.string() }), execute: async () => "ok" });
    expect(thrown(() => ai.agent({ name: "a", model: ai.openai("gpt-test"), tools: [swap as never] })).message).toMatch(
      /has no name: pass tools as a record, tools: \{ name: tool\(\{ \.\.\. \}\) \}/,
    );
    const clientSide = tool({ inputSchema: z.object({ to: z.string() }) });
    expect(thrown(() => ai.agent({ name: "a", model: ai.openai("gpt-test"), tools: { swap: clientSide } })).field).toBe(
      "tools.swap",
    );
  });
});

describe("the AI SDK's setting names", () => {
  it("maxOutputTokens and stopSequences are refused with the name they have here; topK is taken", () => {
    const model = claude("http://unused");
    const max = thrown(() => ai.model(model, { maxOutputTokens: 200 } as never));
    expect(max.message).toMatch(/did you mean `maxTokens`\?/);
    expect(max.suggestion).toBe("maxTokens");
    expect(thrown(() => ai.openai("gpt-test", { stopSequences: ["END"] } as never)).message).toMatch(
      /did you mean `stop`\?/,
    );
    expect(ai.model(model, { topK: 40 }).settings.topK).toBe(40);
    expect(thrown(() => ai.model(model, { topK: 0.5 })).field).toMatch(/topK$/);
  });

  it("a run's modelSettings are checked for unknown keys too, and topK reaches the provider", async () => {
    const agent = ai.agent({ name: "habits-top-k", model: ai.model(claude("http://unused")) });
    await expect(
      agent.start("hi", { client: harness.client, modelSettings: { maxOutputTokens: 10 } as never }),
    ).rejects.toThrow(/`modelSettings` of run\(\) has no option `maxOutputTokens`; did you mean `maxTokens`\?/);
    await onClaude(["Hello."], async (server) => {
      const onServer = ai.agent({ name: "habits-top-k", model: ai.model(claude(server.baseURL), { topK: 40 }) });
      await run(onServer, "hi");
      expect(server.requests[0]!.body.top_k).toBe(40);
    });
  }, 60_000);
});

describe("errors as the docs say", () => {
  it("an invalid_request error event mid-stream fails the run at once with status 400 and the provider's message, not raw JSON", async () => {
    await onClaude([{ text: "Leg day: squats.", failAfterEvents: 3, failWith: "bad-request" }], async (server) => {
      const agent = ai.agent({ name: "habits-error-event", model: claude(server.baseURL) });
      const error = await withWorker(harness, [agent], ({ taskQueue }) =>
        agent.run("Hi", { client: harness.client, taskQueue, streamText: true }),
      ).catch((e: unknown) => e);
      expect(ModelApiError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ status: 400, modelId: "claude-sonnet-4-5" });
      expect((error as Error).message).toBe(
        'Model "claude-sonnet-4-5" API error 400 mid-answer (invalid_request_error): messages: at least one message is required',
      );
      expect(server.requests).toHaveLength(1);
    });
  }, 60_000);
});
