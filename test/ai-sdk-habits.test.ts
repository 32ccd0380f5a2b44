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
import { ai, AgentOptionsError, ModelApiError, type RunResult } from "../src/index.js";
import { startScriptedAnthropic, type ScriptedAnthropic, type ScriptedProviderTurn } from "../src/testing/index.js";
import { claude } from "./support/ai-sdk-helpers.js";
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
