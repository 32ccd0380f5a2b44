/**
 * The scripted Anthropic Messages server, driven by the real `@ai-sdk/anthropic` pointed at it
 * with `baseURL`, through the provider specification (`doGenerate` / `doStream`): what the package
 * reads out of each answer, and what it sends back on the next trip.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedAnthropic, type ScriptedAnthropic, type ScriptedProviderTurn } from "../src/testing/index.js";
import {
  apiCallError,
  ask,
  contentOf,
  deltas,
  finishOf,
  nextTrip,
  planSchema,
  streamParts,
  weatherTool,
} from "./support/provider-helpers.js";

let server: ScriptedAnthropic;
afterEach(() => server.close());

async function claude(script: ScriptedProviderTurn[], model = "claude-sonnet-4-5") {
  server = await startScriptedAnthropic(script, { chunkSize: 4 });
  return createAnthropic({ baseURL: server.baseURL, apiKey: "sk-ant-test" })(model);
}

const usage = { inputTokens: 100, outputTokens: 40, cacheReadTokens: 60, cacheWriteTokens: 10, reasoningTokens: 15 };
const thinking = { type: "enabled", budgetTokens: 1024 };

describe("text and usage", () => {
  it("a whole answer: the text, end_turn as stop, and usage with cache reads, cache writes and thinking tokens", async () => {
    const model = await claude([{ text: "Leg day: squats.", usage }]);
    const result = await model.doGenerate({ prompt: ask("Plan my leg day") });
    expect(result.content).toEqual([{ type: "text", text: "Leg day: squats." }]);
    expect(result.finishReason).toMatchObject({ unified: "stop", raw: "end_turn" });
    expect(result.usage.inputTokens).toEqual({ total: 100, noCache: 30, cacheRead: 60, cacheWrite: 10 });
    expect(result.usage.outputTokens).toMatchObject({ total: 40, reasoning: 15, text: 25 });
    const request = server.requests[0]!;
    expect(request).toMatchObject({ model: "claude-sonnet-4-5", stream: false, path: "/v1/messages" });
    expect(request.headers["x-api-key"]).toBe("sk-ant-test");
    expect(request.body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "Plan my leg day" }] }]);
  });

  it("a streamed answer: named events whose text deltas are the chunks, and the usage of message_start and message_delta", async () => {
    const model = await claude([{ text: "Leg day: squats.", usage }]);
    const parts = await streamParts(model, { prompt: ask("Plan my leg day") });
    expect(deltas(parts, "text-delta")).toEqual(["Leg ", "day:", " squ", "ats."]);
    const finish = finishOf(parts);
    expect(finish.finishReason.unified).toBe("stop");
    expect(finish.usage.inputTokens).toEqual({ total: 100, noCache: 30, cacheRead: 60, cacheWrite: 10 });
    expect(finish.usage.outputTokens.total).toBe(40);
    expect(server.requests[0]!.stream).toBe(true);
  });
});

describe("tool calls", () => {
  const calls = {
    toolCalls: [
      { name: "weather", arguments: { city: "Oslo" } },
      { name: "weather", arguments: { city: "Rome" }, id: "toolu_given" },
    ],
  };

  it("parallel tool calls, whole: tool_use blocks with ids, tool_use as tool-calls", async () => {
    const model = await claude([calls]);
    const result = await model.doGenerate({ prompt: ask("Weather?"), tools: [weatherTool] });
    expect(result.content).toEqual([
      { type: "tool-call", toolCallId: "toolu_scripted_0_0", toolName: "weather", input: '{"city":"Oslo"}' },
      { type: "tool-call", toolCallId: "toolu_given", toolName: "weather", input: '{"city":"Rome"}' },
    ]);
    expect(result.finishReason).toMatchObject({ unified: "tool-calls", raw: "tool_use" });
    expect(server.requests[0]!.body.tools).toEqual([expect.objectContaining({ name: "weather" })]);
  });

  it("parallel tool calls, streamed: input_json_delta pieces joined into each call", async () => {
    const model = await claude([calls]);
    const parts = await streamParts(model, { prompt: ask("Weather?"), tools: [weatherTool] });
    expect(parts.filter((part) => part.type === "tool-input-delta").length).toBeGreaterThan(4);
    expect(contentOf(parts)).toEqual([
      expect.objectContaining({
        type: "tool-call",
        toolCallId: "toolu_scripted_0_0",
        toolName: "weather",
        input: '{"city":"Oslo"}',
      }),
      expect.objectContaining({
        type: "tool-call",
        toolCallId: "toolu_given",
        toolName: "weather",
        input: '{"city":"Rome"}',
      }),
    ]);
    expect(finishOf(parts).finishReason.unified).toBe("tool-calls");
  });
});

describe("web searches (Anthropic's web_search server tool)", () => {
  const webSearch = {
    type: "provider" as const,
    id: "anthropic.web_search_20250305" as const,
    name: "web_search",
    args: {},
  };
  const turn: ScriptedProviderTurn = {
    webSearches: [
      { query: "squat alternatives", results: [{ url: "https://example.com/lunges", title: "Lunges" }] },
      { id: "srvtoolu_given", query: "lunge load", results: { errorCode: "max_uses_exceeded" } },
    ],
    text: "Lunges.",
  };
  const expected = [
    expect.objectContaining({
      type: "tool-call",
      toolCallId: "srvtoolu_scripted_0_0",
      toolName: "web_search",
      input: '{"query":"squat alternatives"}',
      providerExecuted: true,
    }),
    expect.objectContaining({
      type: "tool-result",
      toolCallId: "srvtoolu_scripted_0_0",
      result: [
        expect.objectContaining({ url: "https://example.com/lunges", title: "Lunges", type: "web_search_result" }),
      ],
    }),
    expect.objectContaining({ type: "tool-call", toolCallId: "srvtoolu_given", providerExecuted: true }),
    expect.objectContaining({
      type: "tool-result",
      toolCallId: "srvtoolu_given",
      isError: true,
      result: { type: "web_search_tool_result_error", errorCode: "max_uses_exceeded" },
    }),
  ];

  it("whole: each server_tool_use a provider-executed tool call, each web_search_tool_result its result (or its error)", async () => {
    const model = await claude([turn]);
    const result = await model.doGenerate({ prompt: ask("Swap squats?"), tools: [webSearch] });
    expect(result.content.filter((part) => part.type === "tool-call" || part.type === "tool-result")).toEqual(expected);
  });

  it("streamed: the query in input_json_delta pieces, the result whole, the same parts", async () => {
    const model = await claude([turn]);
    const parts = await streamParts(model, { prompt: ask("Swap squats?"), tools: [webSearch] });
    expect(parts.filter((part) => part.type === "tool-input-delta").length).toBeGreaterThan(2);
    expect(parts.filter((part) => part.type === "tool-call" || part.type === "tool-result")).toEqual(expected);
    expect(finishOf(parts).finishReason.unified).toBe("stop");
  });
});

describe("reasoning", () => {
  const trip1: ScriptedProviderTurn = {
    reasoning: [
      { text: "The user wants the weather.", signature: "sig-trip-1" },
      { redacted: true, signature: "redacted-data-1" },
    ],
    toolCalls: [{ name: "weather", arguments: { city: "Oslo" } }],
  };

  for (const streamed of [false, true]) {
    it(`${streamed ? "streamed" : "whole"}: a thinking block's signature and a redacted block's data come back on trip 2 as the same blocks`, async () => {
      const model = await claude([trip1, "Oslo: 4°C."]);
      const options = { tools: [weatherTool], providerOptions: { anthropic: { thinking } } };
      const answer = streamed
        ? contentOf(await streamParts(model, { prompt: ask("Weather in Oslo?"), ...options }))
        : (await model.doGenerate({ prompt: ask("Weather in Oslo?"), ...options })).content;
      expect(answer.filter((part) => part.type === "reasoning")).toEqual([
        expect.objectContaining({
          text: "The user wants the weather.",
          providerMetadata: { anthropic: { signature: "sig-trip-1" } },
        }),
        expect.objectContaining({ text: "", providerMetadata: { anthropic: { redactedData: "redacted-data-1" } } }),
      ]);
      await model.doGenerate({ prompt: nextTrip("Weather in Oslo?", answer, { weather: { celsius: 4 } }), ...options });
      const sent = server.requests[1]!.body;
      expect(sent.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
      expect(sent.messages[1]).toEqual({
        role: "assistant",
        content: [
          { type: "thinking", thinking: "The user wants the weather.", signature: "sig-trip-1" },
          { type: "redacted_thinking", data: "redacted-data-1" },
          { type: "tool_use", id: "toolu_scripted_0_0", name: "weather", input: { city: "Oslo" } },
        ],
      });
      expect(sent.messages[2]).toEqual({
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_scripted_0_0", content: '{"celsius":4}' }],
      });
    });
  }

  it("streamed thinking arrives as reasoning deltas, its signature on the block", async () => {
    const model = await claude([{ reasoning: { text: "Think twice.", signature: "s" }, text: "Done." }]);
    const parts = await streamParts(model, { prompt: ask("Go"), providerOptions: { anthropic: { thinking } } });
    expect(deltas(parts, "reasoning-delta")).toEqual(["Thin", "k tw", "ice.", ""]);
    expect(deltas(parts, "text-delta").join("")).toBe("Done.");
  });
});

describe("structured output", () => {
  it("a model with native structured output asks with output_config.format and reads the JSON text", async () => {
    const model = await claude([{ json: { day: "legs", sets: 5 } }]);
    const result = await model.doGenerate({
      prompt: ask("Plan"),
      responseFormat: { type: "json", schema: planSchema },
    });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({ day: "legs", sets: 5 });
    expect(server.requests[0]!.body.output_config).toMatchObject({ format: { type: "json_schema" } });
  });

  it("an older model asks through a json tool it requires, and the server answers with that tool's call, read as text", async () => {
    const model = await claude(
      [{ json: { day: "legs", sets: 5 } }, { json: { day: "arms", sets: 3 } }],
      "claude-3-haiku-20240307",
    );
    const result = await model.doGenerate({
      prompt: ask("Plan"),
      responseFormat: { type: "json", schema: planSchema },
    });
    expect(server.requests[0]!.body.tool_choice).toMatchObject({ type: "any" });
    expect(server.requests[0]!.body.tools).toEqual([expect.objectContaining({ name: "json" })]);
    expect(result.content).toEqual([{ type: "text", text: '{"day":"legs","sets":5}' }]);
    expect(result.finishReason.unified).toBe("stop");
    const parts = await streamParts(model, {
      prompt: ask("Plan"),
      responseFormat: { type: "json", schema: planSchema },
    });
    expect(deltas(parts, "text-delta").join("")).toBe('{"day":"arms","sets":3}');
  });
});

describe("errors, as the package classifies them", () => {
  it("429 rate_limit_error with Retry-After: retryable, the header on the error", async () => {
    const model = await claude([{ error: "rate-limit", retryAfter: 7 }]);
    const error = await apiCallError(model.doGenerate({ prompt: ask("hi") }));
    expect(error).toMatchObject({ statusCode: 429, isRetryable: true });
    expect(error.responseHeaders?.["retry-after"]).toBe("7");
    expect(error.data).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
  });

  it("529 overloaded_error: retryable, streamed or not", async () => {
    const model = await claude([{ error: "overloaded" }, { error: "overloaded" }]);
    expect(await apiCallError(model.doGenerate({ prompt: ask("hi") }))).toMatchObject({
      statusCode: 529,
      isRetryable: true,
      message: "Overloaded",
    });
    expect(await apiCallError(model.doStream({ prompt: ask("hi") }))).toMatchObject({
      statusCode: 529,
      isRetryable: true,
    });
  });

  it("400 invalid_request_error and 401 authentication_error: not retryable", async () => {
    const model = await claude([{ error: "bad-request" }, { error: "auth" }]);
    expect(await apiCallError(model.doGenerate({ prompt: ask("hi") }))).toMatchObject({
      statusCode: 400,
      isRetryable: false,
      data: { error: { type: "invalid_request_error" } },
    });
    expect(await apiCallError(model.doGenerate({ prompt: ask("hi") }))).toMatchObject({
      statusCode: 401,
      isRetryable: false,
      data: { error: { type: "authentication_error" } },
    });
  });

  it("an overloaded error event inside a started stream: an error part with status 529, retryable, after the text so far", async () => {
    const model = await claude([
      { text: "Leg day: squats.", failAfterEvents: 5 },
      { text: "Leg day", failAfterEvents: 0 },
    ]);
    const parts = await streamParts(model, { prompt: ask("hi") });
    expect(deltas(parts, "text-delta")).toEqual(["Leg ", "day:"]); // message_start, content_block_start, ping, 2 deltas
    expect(parts.find((part) => part.type === "error")).toMatchObject({
      error: { type: "overloaded_error", message: "Overloaded", statusCode: 529, isRetryable: true },
    });
    expect(await apiCallError(model.doStream({ prompt: ask("hi") }))).toMatchObject({
      statusCode: 529,
      isRetryable: true,
    }); // the error as the first event
  });

  it("a refusal is the content filter", async () => {
    const model = await claude([
      { text: "I can't help with that.", finish: "content-filter" },
      { finish: "length", text: "Cut" },
    ]);
    expect((await model.doGenerate({ prompt: ask("hi") })).finishReason).toMatchObject({
      unified: "content-filter",
      raw: "refusal",
    });
    expect((await model.doGenerate({ prompt: ask("hi") })).finishReason).toMatchObject({
      unified: "length",
      raw: "max_tokens",
    });
  });

  it("a request past the end of the script gets a 400 saying so", async () => {
    const model = await claude([]);
    const error = await apiCallError(model.doGenerate({ prompt: ask("hi") }));
    expect(error).toMatchObject({ statusCode: 400, isRetryable: false });
    expect(error.message).toContain("request #1 has no scripted turn (the script has 0)");
  });
});
