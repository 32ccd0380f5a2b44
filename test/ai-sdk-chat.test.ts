/**
 * Issue 31: an AI SDK language model as the agent's model, driven by real provider packages over
 * real HTTP against the scripted Chat Completions server: `@ai-sdk/openai`'s `.chat()` (spec v4),
 * `createOpenAICompatible` (v4), and AI SDK 5's `@ai-sdk/openai` (v2). The trip loop, settings,
 * streaming, usage, typed output, images in tool results, and what a wrong model object gets.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createOpenAI as createOpenAIv2 } from "@ai-sdk/openai-v2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ai,
  AgentOptionsError,
  LANGUAGE_MODEL_SPECIFICATIONS,
  LoadAPIKeyError,
  ModelApiError,
  type RunResult,
  type StreamedRunEvent,
} from "../src/index.js";
import { startScriptedModel, type ScriptedRequest, type ScriptedTurn } from "../src/testing/index.js";
import { swap, updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { optionsErrorField } from "./support/options-helpers.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const chat = (baseURL: string, id = "gpt-test") => createOpenAI({ baseURL, apiKey: "sk-test-key" }).chat(id);
const usage = {
  prompt_tokens: 100,
  completion_tokens: 20,
  prompt_tokens_details: { cached_tokens: 60 },
  completion_tokens_details: { reasoning_tokens: 5 },
};

async function runOn(
  script: ScriptedTurn[],
  make: (baseURL: string) => Parameters<typeof ai.agent>[0],
  input = "Swap squats for lunges",
  run: { streamText?: boolean } = {},
): Promise<{ result: RunResult; requests: ScriptedRequest[] }> {
  const server = await startScriptedModel(script);
  try {
    const agent = ai.agent(make(server.baseURL));
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run(input, { client: harness.client, taskQueue, ...run }),
    );
    return { result, requests: server.requests };
  } finally {
    await server.close();
  }
}

describe("an AI SDK model in ai.agent()", () => {
  it("runs the trip loop: tools offered, the call executed, its result sent back, the answer recorded with usage", async () => {
    const calls: unknown[] = [];
    const { result, requests } = await runOn(
      [
        { ...(swap("lunges") as object), usage },
        { text: "Done: squats are now lunges.", usage },
      ],
      (baseURL) => ({
        name: "sdk-chat-loop",
        instructions: "You are a coach.",
        model: chat(baseURL),
        tools: [updatePlanTool(calls)],
      }),
    );
    expect(result.stopReason).toBe("answered");
    expect(result.reply).toBe("Done: squats are now lunges.");
    expect(calls).toEqual([{ from: "squats", to: "lunges" }]);
    const [first, second] = requests.map((r) => r.body);
    expect(first!.messages[0]).toEqual({ role: "system", content: "You are a coach." });
    expect(first!.tools).toEqual([
      expect.objectContaining({ type: "function", function: expect.objectContaining({ name: "update_plan" }) }),
    ]);
    expect(second!.messages.slice(-2)).toEqual([
      expect.objectContaining({
        role: "assistant",
        tool_calls: [
          expect.objectContaining({ function: { name: "update_plan", arguments: '{"from":"squats","to":"lunges"}' } }),
        ],
      }),
      { role: "tool", tool_call_id: result.toolCalls[0]!.id, content: '{"ok":true}' },
    ]);
    expect(result.usage).toEqual({
      inputTokens: 200,
      outputTokens: 40,
      totalTokens: 240,
      cachedInputTokens: 120,
      reasoningTokens: 10,
      modelCalls: 2,
    });
  });

  it("streams the answer's text as deltas, as the openai path does (doStream), and records the same answer", async () => {
    const server = await startScriptedModel([{ text: "Squats are now lunges, as you asked.", chunkSize: 5 }]);
    const agent = ai.agent({ name: "sdk-chat-stream", model: chat(server.baseURL) });
    const events: StreamedRunEvent[] = [];
    await withWorker(harness, [agent], async ({ taskQueue }) => {
      for await (const event of await agent.stream("Swap squats", { client: harness.client, taskQueue }))
        events.push(event);
    });
    const text = events.flatMap((e) => (e.type === "text.delta" ? [e.text] : [])).join("");
    expect(text).toBe("Squats are now lunges, as you asked.");
    expect(server.requests[0]!.body.stream).toBe(true);
    const finished = events.at(-1) as Extract<StreamedRunEvent, { type: "run.finished" }>;
    expect(finished.result.reply).toBe("Squats are now lunges, as you asked.");
    await server.close();
  });

  it("an unstreamed run calls doGenerate (no stream requested)", async () => {
    const { result, requests } = await runOn(
      ["Hello."],
      (baseURL) => ({ name: "sdk-chat-generate", model: chat(baseURL) }),
      "Hi",
    );
    expect(requests[0]!.body.stream).toBeFalsy();
    expect(result.reply).toBe("Hello.");
  });

  it("createOpenAICompatible (an OpenAI-compatible server such as llama.cpp) works the same", async () => {
    const { result, requests } = await runOn([swap("lunges"), "Done."], (baseURL) => ({
      name: "sdk-compatible",
      model: createOpenAICompatible({ name: "local", baseURL })("qwen"),
      tools: [updatePlanTool()],
    }));
    expect(result.reply).toBe("Done.");
    expect(requests.map((r) => r.body.model)).toEqual(["qwen", "qwen"]);
  });

  it("an AI SDK 5 model (specificationVersion v2) works the same", async () => {
    const model = createOpenAIv2({ baseURL: "http://unused", apiKey: "k" }).chat("gpt-test");
    expect(model.specificationVersion).toBe("v2");
    const { result } = await runOn(
      [
        { ...(swap("lunges") as object), usage },
        { text: "Done.", usage },
      ],
      (baseURL) => ({
        name: "sdk-v2",
        model: createOpenAIv2({ baseURL, apiKey: "k" }).chat("gpt-test"),
        tools: [updatePlanTool()],
      }),
    );
    expect(result.reply).toBe("Done.");
    expect(result.toolCalls.map((c) => c.status)).toEqual(["ok"]);
    expect(result.usage).toMatchObject({
      inputTokens: 200,
      outputTokens: 40,
      cachedInputTokens: 120,
      reasoningTokens: 10,
    });
  });
});

describe("ai.model(languageModel, settings)", () => {
  const SETTINGS = [
    "temperature",
    "max_tokens",
    "top_p",
    "seed",
    "stop",
    "presence_penalty",
    "frequency_penalty",
    "tool_choice",
    "parallel_tool_calls",
  ];
  const sent = (body: Record<string, unknown>) =>
    Object.fromEntries(SETTINGS.filter((key) => body[key] !== undefined).map((key) => [key, body[key]]));

  it("each setting reaches the request; a forced tool applies to the first trip only; a run's modelSettings win", async () => {
    const { requests } = await runOn([swap("lunges"), "Done."], (baseURL) => ({
      name: "sdk-settings",
      tools: [updatePlanTool()],
      model: ai.model(chat(baseURL), {
        temperature: 0.2,
        maxTokens: 300,
        topP: 0.9,
        seed: 42,
        stop: ["END"],
        presencePenalty: 0.5,
        frequencyPenalty: -0.5,
        toolChoice: { tool: "update_plan" },
        parallelToolCalls: false,
      }),
    }));
    const common = {
      temperature: 0.2,
      max_tokens: 300,
      top_p: 0.9,
      seed: 42,
      stop: ["END"],
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      parallel_tool_calls: false,
    };
    expect(sent(requests[0]!.body)).toEqual({
      ...common,
      tool_choice: { type: "function", function: { name: "update_plan" } },
    });
    expect(sent(requests[1]!.body)).toEqual(common);

    const server = await startScriptedModel(["Hi."]);
    const agent = ai.agent({
      name: "sdk-settings-run",
      model: ai.model(chat(server.baseURL), { temperature: 0.2, seed: 1 }),
    });
    await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("Hi", { client: harness.client, taskQueue, modelSettings: { seed: 7, topP: 0.5 } }),
    );
    expect(sent(server.requests[0]!.body)).toEqual({ temperature: 0.2, seed: 7, top_p: 0.5 });
    await server.close();
  });

  it("providerOptions reach the provider (an OpenAI-compatible server's own body fields)", async () => {
    const { requests } = await runOn(
      ["Hi."],
      (baseURL) => ({
        name: "sdk-provider-options",
        model: ai.model(createOpenAICompatible({ name: "local", baseURL })("qwen"), {
          providerOptions: { local: { top_k: 40, min_p: 0.1 } },
        }),
      }),
      "Hi",
    );
    expect(requests[0]!.body).toMatchObject({ top_k: 40, min_p: 0.1 });
  });

  it("a setting the provider does not support fails the run with AgentOptionsError naming it, at once", async () => {
    // OpenAI's reasoning models take no temperature: the provider package warns, and the run stops.
    const server = await startScriptedModel(["Hi."]);
    const agent = ai.agent({
      name: "sdk-unsupported",
      model: ai.model(chat(server.baseURL, "o3-mini"), { temperature: 0.3 }),
    });
    const error = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("Hi", { client: harness.client, taskQueue }).catch((e: unknown) => e),
    );
    expect(AgentOptionsError.isInstance(error)).toBe(true);
    expect((error as AgentOptionsError).field).toBe("temperature");
    expect((error as Error).message).toMatch(/openai\.chat "o3-mini" does not support it/);
    expect(server.requests).toHaveLength(0); // caught before the request, by the provider's getArgs
    await server.close();
  });

  it("bad settings and wrong model objects are AgentOptionsErrors at definition time", () => {
    const model = chat("http://unused");
    expect(optionsErrorField(() => ai.model(model, { temperature: 3 }))).toMatch(/temperature$/);
    expect(optionsErrorField(() => ai.model(model, { tempreature: 1 } as never))).toBe("tempreature");
    expect(optionsErrorField(() => ai.model(model, { providerOptions: { openai: 1 } } as never))).toMatch(
      /providerOptions\.openai$/,
    );
    expect(optionsErrorField(() => ai.model(model, { pricing: { inputPerMillion: 1 } } as never))).toMatch(/pricing$/);
    expect(
      ai.model(createOpenAICompatible({ name: "x", baseURL: "http://unused" })("m"), { parallelToolCalls: true })
        .settings.parallelToolCalls,
    ).toBe(true);
    const google = {
      specificationVersion: "v4",
      provider: "google.generative-ai",
      modelId: "gemini",
      doGenerate: async () => ({}),
      doStream: async () => ({}),
    } as never;
    expect(optionsErrorField(() => ai.model(google, { parallelToolCalls: false }))).toMatch(/parallelToolCalls$/);

    const old = {
      specificationVersion: "v1",
      provider: "openai.chat",
      modelId: "gpt-4",
      doGenerate: async () => ({}),
      doStream: async () => ({}),
    };
    for (const wrong of [old, { ...old, specificationVersion: "v9" }]) {
      try {
        ai.agent({ name: "wrong-spec", model: wrong as never });
        expect.unreachable();
      } catch (error) {
        expect(AgentOptionsError.isInstance(error)).toBe(true);
        expect((error as AgentOptionsError).field).toBe("model");
        for (const version of LANGUAGE_MODEL_SPECIFICATIONS) expect((error as Error).message).toContain(`"${version}"`);
      }
    }
    expect(() => ai.agent({ name: "no-model", model: { modelId: 3 } as never })).toThrow(
      /ai\.openai\(\.\.\.\), ai\.model\(languageModel\) or an AI SDK language model \(specificationVersion "v4", "v3", "v2"\)/,
    );
    expect(() =>
      ai.agent({ name: "not-callable", model: { ...old, specificationVersion: "v4", doStream: 1 } as never }),
    ).toThrow(/without doGenerate and doStream/);
    expect(optionsErrorField(() => ai.agent({ name: "cost-without-price", model, budget: { maxCostUsd: 1 } }))).toBe(
      "budget.maxCostUsd",
    );
  });

  it("agent.version follows the provider and model id, not where the model is", () => {
    const a = ai.agent({ name: "v", model: chat("http://a") });
    const b = ai.agent({ name: "v", model: chat("http://b") });
    const other = ai.agent({ name: "v", model: chat("http://a", "gpt-other") });
    const compatible = ai.agent({
      name: "v",
      model: createOpenAICompatible({ name: "local", baseURL: "http://a" })("gpt-test"),
    });
    const openaiClient = ai.agent({ name: "v", model: ai.openai("gpt-test") });
    expect(a.version).toBe(b.version);
    expect(new Set([a.version, other.version, compatible.version, openaiClient.version]).size).toBe(4);
    expect(
      ai.agent({
        name: "v",
        model: ai.model(chat("http://a"), { pricing: { inputPerMillion: 1, outputPerMillion: 2 } }),
      }).version,
    ).toBe(a.version);
  });
});

describe("an AI SDK model's errors", () => {
  it("a 429 with Retry-After is retried after it; a 400 fails the run with ModelApiError (status 400) at once", async () => {
    const { result, requests } = await runOn(
      [{ status: 429, headers: { "retry-after": "1" } }, "Hi."],
      (baseURL) => ({ name: "sdk-429", model: chat(baseURL) }),
      "Hi",
    );
    expect(result.reply).toBe("Hi.");
    expect(requests).toHaveLength(2);

    const server = await startScriptedModel([
      {
        status: 400,
        body: { error: { message: "bad request: max_tokens is too large", type: "invalid_request_error" } },
      },
    ]);
    const agent = ai.agent({ name: "sdk-400", model: chat(server.baseURL) });
    const error = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("Hi", { client: harness.client, taskQueue }).catch((e: unknown) => e),
    );
    expect(ModelApiError.isInstance(error)).toBe(true);
    expect((error as ModelApiError).status).toBe(400);
    expect((error as Error).message).toMatch(/Model "gpt-test" API error 400: bad request: max_tokens is too large/);
    expect(server.requests).toHaveLength(1);
    await server.close();
  });

  it("a stream cut mid-answer is retried", async () => {
    const server = await startScriptedModel([
      { text: "Squats are now lunges, as asked.", cutAfterChunks: 3 },
      "Squats are now lunges.",
    ]);
    const agent = ai.agent({ name: "sdk-cut", model: chat(server.baseURL) });
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("Swap", { client: harness.client, taskQueue, streamText: true }),
    );
    expect(result.reply).toBe("Squats are now lunges.");
    expect(server.requests).toHaveLength(2);
    await server.close();
  });

  it("a missing API key fails the run with one clear line naming it, and no key in the history", async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      const server = await startScriptedModel(["Hi."]);
      const agent = ai.agent({ name: "sdk-no-key", model: createOpenAI({ baseURL: server.baseURL }).chat("gpt-test") });
      const { error, history } = await withWorker(harness, [agent], async ({ taskQueue }) => {
        const handle = await agent.start("Hi", { client: harness.client, taskQueue });
        const failed = await handle.result().catch((e: unknown) => e);
        return { error: failed, history: JSON.stringify(await handle.workflow.fetchHistory()) };
      });
      expect(ModelApiError.isInstance(error)).toBe(true);
      expect(LoadAPIKeyError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ variable: "OPENAI_API_KEY" });
      expect((error as Error).message).toBe(
        'No API key for model "gpt-test": set OPENAI_API_KEY on the worker, or pass apiKey to the provider.',
      );
      expect(server.requests).toHaveLength(0);
      expect(history).not.toContain("sk-");
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });
});

describe("typed output and images with an AI SDK model", () => {
  it("typed output goes as the provider's JSON response format, and is parsed", async () => {
    const { result, requests } = await runOn(
      ['{"exercise":"lunges"}'],
      (baseURL) => ({
        name: "sdk-output",
        model: ai.model(createOpenAICompatible({ name: "local", baseURL, supportsStructuredOutputs: true })("qwen")),
        output: z.object({ exercise: z.string() }),
      }),
      "Swap",
    );
    expect(requests[0]!.body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { schema: expect.objectContaining({ type: "object" }) },
    });
    expect(result.output).toEqual({ exercise: "lunges" });
  });

  it("a provider with a JSON mode but no JSON schema gets JSON mode and the schema in the instructions, from then on", async () => {
    const { result, requests } = await runOn(
      ['{"exercise":"lunges"}'],
      (baseURL) => ({
        name: "sdk-output-prompt",
        model: createOpenAICompatible({ name: "plain", baseURL })("qwen-plain"),
        output: z.object({ exercise: z.string() }),
      }),
      "Swap",
      { streamText: true },
    );
    // The provider's getArgs warned before any request (no json_schema without structuredOutputs): the one
    // request sent has JSON mode (a model server such as llama.cpp then answers JSON alone, not fenced
    // JSON) and the schema in the instructions; none was sent and dropped.
    expect(requests).toHaveLength(1);
    expect(requests[0]!.body.response_format).toEqual({ type: "json_object" });
    expect(String(requests[0]!.body.messages[0]!.content)).toContain('"exercise"');
    expect(result.output).toEqual({ exercise: "lunges" });
  });

  it("images a tool returns are named in the tool message without their base64, and sent in a user message after the tool results", async () => {
    const png = Buffer.alloc(64, 7).toString("base64");
    const snapshot = ai.tool({
      name: "snapshot",
      description: "A picture of the plan",
      input: z.object({}),
      execute: async () => ({
        content: [
          { type: "text", text: "Here is the plan." },
          { type: "image", data: png, mimeType: "image/png" },
        ],
      }),
    });
    const { requests } = await runOn(
      [{ toolCalls: [{ name: "snapshot", arguments: {} }] }, "It shows three exercises."],
      (baseURL) => ({ name: "sdk-images", model: chat(baseURL), tools: [snapshot] }),
      "Show me",
    );
    const messages = requests[1]!.body.messages;
    const tool = messages.find((m) => m.role === "tool")!;
    expect(String(tool.content)).not.toContain(png);
    expect(String(tool.content)).toContain("[image 1, image/png: sent as an image after the tool results]");
    expect(messages.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "The images the tool results above returned (1 from snapshot), in order:" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
      ],
    });
  });
});
