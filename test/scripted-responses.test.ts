/**
 * The scripted OpenAI Responses server, driven by the real `@ai-sdk/openai` (`.responses(...)`)
 * pointed at it with `baseURL`, through the provider specification (`doGenerate` / `doStream`):
 * what the package reads out of each answer, and what it sends back on the next trip.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedResponses, type ScriptedProviderTurn, type ScriptedResponses } from "../src/testing/index.js";
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

let server: ScriptedResponses;
afterEach(() => server.close());

async function gpt(script: ScriptedProviderTurn[], model = "o4-mini") {
  server = await startScriptedResponses(script, { chunkSize: 4 });
  return createOpenAI({ baseURL: server.baseURL, apiKey: "sk-test" }).responses(model);
}

const usage = { inputTokens: 100, outputTokens: 40, cacheReadTokens: 60, cacheWriteTokens: 10, reasoningTokens: 15 };

describe("text and usage", () => {
  it("a whole answer: the message's text with its item id, and usage with cached, cache-write and reasoning tokens", async () => {
    const model = await gpt([{ text: "Leg day: squats.", usage }]);
    const result = await model.doGenerate({ prompt: ask("Plan my leg day") });
    expect(result.content).toEqual([
      { type: "text", text: "Leg day: squats.", providerMetadata: { openai: { itemId: "msg_scripted_0" } } },
    ]);
    expect(result.finishReason.unified).toBe("stop");
    expect(result.usage.inputTokens).toEqual({ total: 100, noCache: 30, cacheRead: 60, cacheWrite: 10 });
    expect(result.usage.outputTokens).toEqual({ total: 40, text: 25, reasoning: 15 });
    const request = server.requests[0]!;
    expect(request).toMatchObject({ model: "o4-mini", stream: false, path: "/v1/responses" });
    expect(request.headers.authorization).toBe("Bearer sk-test");
    expect(request.body.input).toEqual([{ role: "user", content: [{ type: "input_text", text: "Plan my leg day" }] }]);
  });

  it("a streamed answer: output_text deltas are the chunks, and the usage of response.completed", async () => {
    const model = await gpt([{ text: "Leg day: squats.", usage }]);
    const parts = await streamParts(model, { prompt: ask("Plan my leg day") });
    expect(deltas(parts, "text-delta")).toEqual(["Leg ", "day:", " squ", "ats."]);
    const finish = finishOf(parts);
    expect(finish.finishReason.unified).toBe("stop");
    expect(finish.usage.inputTokens).toEqual({ total: 100, noCache: 30, cacheRead: 60, cacheWrite: 10 });
    expect(finish.usage.outputTokens).toEqual({ total: 40, text: 25, reasoning: 15 });
    expect(server.requests[0]!.stream).toBe(true);
  });
});

describe("tool calls", () => {
  const calls = {
    toolCalls: [
      { name: "weather", arguments: { city: "Oslo" } },
      { name: "weather", arguments: { city: "Rome" }, id: "call_given" },
    ],
  };

  for (const streamed of [false, true]) {
    it(`parallel function calls, ${streamed ? "streamed (argument deltas)" : "whole"}: each call's call_id, name and arguments`, async () => {
      const model = await gpt([calls]);
      const options = { prompt: ask("Weather?"), tools: [weatherTool] };
      const parts = streamed ? await streamParts(model, options) : undefined;
      const content = parts ? contentOf(parts) : (await model.doGenerate(options)).content;
      expect(content).toEqual([
        expect.objectContaining({
          type: "tool-call",
          toolCallId: "call_scripted_0_0",
          toolName: "weather",
          input: '{"city":"Oslo"}',
        }),
        expect.objectContaining({
          type: "tool-call",
          toolCallId: "call_given",
          toolName: "weather",
          input: '{"city":"Rome"}',
        }),
      ]);
      if (parts) expect(parts.filter((part) => part.type === "tool-input-delta").length).toBeGreaterThan(4);
      expect(server.requests[0]!.body.tools).toEqual([expect.objectContaining({ type: "function", name: "weather" })]);
    });
  }
});

describe("reasoning", () => {
  const trip1: ScriptedProviderTurn = {
    reasoning: { text: "The user wants the weather.", encryptedContent: "enc-trip-1" },
    toolCalls: [{ name: "weather", arguments: { city: "Oslo" } }],
  };

  for (const streamed of [false, true]) {
    it(`${streamed ? "streamed" : "whole"}, store: false: the reasoning item's id and encrypted content come back on trip 2 as the same item`, async () => {
      const model = await gpt([trip1, "Oslo: 4°C."]);
      const options = { tools: [weatherTool], providerOptions: { openai: { store: false, reasoningSummary: "auto" } } };
      const answer = streamed
        ? contentOf(await streamParts(model, { prompt: ask("Weather in Oslo?"), ...options }))
        : (await model.doGenerate({ prompt: ask("Weather in Oslo?"), ...options })).content;
      expect(server.requests[0]!.body.include).toContain("reasoning.encrypted_content");
      expect(answer.find((part) => part.type === "reasoning")).toMatchObject({
        text: "The user wants the weather.",
        providerMetadata: { openai: { itemId: "rs_scripted_0_0", reasoningEncryptedContent: "enc-trip-1" } },
      });
      await model.doGenerate({ prompt: nextTrip("Weather in Oslo?", answer, { weather: { celsius: 4 } }), ...options });
      expect(server.requests[1]!.body.input).toEqual([
        { role: "user", content: [{ type: "input_text", text: "Weather in Oslo?" }] },
        {
          type: "reasoning",
          id: "rs_scripted_0_0",
          encrypted_content: "enc-trip-1",
          summary: [{ type: "summary_text", text: "The user wants the weather." }],
        },
        { type: "function_call", call_id: "call_scripted_0_0", name: "weather", arguments: '{"city":"Oslo"}' },
        { type: "function_call_output", call_id: "call_scripted_0_0", output: '{"celsius":4}' },
      ]);
    });
  }

  it("store on (the default): no encrypted content is asked for or sent, and trip 2 refers to the stored item by id", async () => {
    const model = await gpt([trip1, "Oslo: 4°C."]);
    const first = await model.doGenerate({ prompt: ask("Weather in Oslo?"), tools: [weatherTool] });
    expect(server.requests[0]!.body.include ?? []).not.toContain("reasoning.encrypted_content");
    expect(first.content.find((part) => part.type === "reasoning")).toMatchObject({
      providerMetadata: { openai: { itemId: "rs_scripted_0_0", reasoningEncryptedContent: null } },
    });
    await model.doGenerate({ prompt: nextTrip("Weather in Oslo?", first.content), tools: [weatherTool] });
    expect(server.requests[1]!.body.input).toContainEqual({ type: "item_reference", id: "rs_scripted_0_0" });
  });

  it("streamed reasoning summaries arrive as reasoning deltas", async () => {
    const model = await gpt([{ reasoning: { text: "Think twice." }, text: "Done." }]);
    const parts = await streamParts(model, { prompt: ask("Go") });
    expect(deltas(parts, "reasoning-delta")).toEqual(["Thin", "k tw", "ice."]);
    expect(deltas(parts, "text-delta").join("")).toBe("Done.");
  });
});

describe("structured output", () => {
  it("asks with text.format json_schema and reads the JSON text", async () => {
    const model = await gpt([{ json: { day: "legs", sets: 5 } }]);
    const result = await model.doGenerate({
      prompt: ask("Plan"),
      responseFormat: { type: "json", schema: planSchema, name: "plan" },
    });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({ day: "legs", sets: 5 });
    expect(server.requests[0]!.body.text).toMatchObject({ format: { type: "json_schema", name: "plan" } });
  });
});

describe("errors, as the package classifies them", () => {
  it("429 rate_limit_exceeded with Retry-After: retryable, the header on the error", async () => {
    const model = await gpt([{ error: "rate-limit", retryAfter: 3 }]);
    const error = await apiCallError(model.doGenerate({ prompt: ask("hi") }));
    expect(error).toMatchObject({
      statusCode: 429,
      isRetryable: true,
      data: { error: { code: "rate_limit_exceeded" } },
    });
    expect(error.responseHeaders?.["retry-after"]).toBe("3");
  });

  it("503 overloaded: retryable; 400 and 401 invalid_api_key: not retryable", async () => {
    const model = await gpt([{ error: "overloaded" }, { error: "bad-request" }, { error: "auth" }]);
    expect(await apiCallError(model.doStream({ prompt: ask("hi") }))).toMatchObject({
      statusCode: 503,
      isRetryable: true,
    });
    expect(await apiCallError(model.doGenerate({ prompt: ask("hi") }))).toMatchObject({
      statusCode: 400,
      isRetryable: false,
    });
    expect(await apiCallError(model.doGenerate({ prompt: ask("hi") }))).toMatchObject({
      statusCode: 401,
      isRetryable: false,
      data: { error: { code: "invalid_api_key" } },
    });
  });

  it("an error event inside a started stream: an error part with its status and retryability, after the text so far", async () => {
    const model = await gpt([{ text: "Leg day: squats.", failAfterEvents: 6, failWith: "server" }]);
    const parts = await streamParts(model, { prompt: ask("hi") });
    expect(deltas(parts, "text-delta")).toEqual(["Leg ", "day:"]); // created, in_progress, item added, part added, 2 deltas
    expect(parts.find((part) => part.type === "error")).toMatchObject({
      error: {
        statusCode: 500,
        isRetryable: true,
        message: "The server had an error while processing your request.",
        data: { type: "error", sequence_number: 6 },
      },
    });
    expect(finishOf(parts).finishReason.unified).toBe("error");
  });

  it("an error event before any output fails doStream itself with an APICallError", async () => {
    const model = await gpt([{ text: "Leg day", failAfterEvents: 2, failWith: "overloaded" }]);
    expect(await apiCallError(model.doStream({ prompt: ask("hi") }))).toMatchObject({
      statusCode: 503,
      isRetryable: true,
      data: { code: "server_is_overloaded" },
    });
  });

  it("an incomplete response: content_filter is the content filter, max_output_tokens the length", async () => {
    const model = await gpt([
      { text: "I can't", finish: "content-filter" },
      { text: "Cut", finish: "length" },
    ]);
    expect((await model.doGenerate({ prompt: ask("hi") })).finishReason).toMatchObject({
      unified: "content-filter",
      raw: "content_filter",
    });
    expect(finishOf(await streamParts(model, { prompt: ask("hi") })).finishReason).toMatchObject({
      unified: "length",
      raw: "max_output_tokens",
    });
  });
});
