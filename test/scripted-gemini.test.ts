/**
 * The scripted Gemini server, driven by the real `@ai-sdk/google` pointed at it with `baseURL`,
 * through the provider specification (`doGenerate` / `doStream`): what the package reads out of
 * each answer, and what it sends back on the next trip.
 */
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedGemini, type ScriptedGemini, type ScriptedProviderTurn } from "../src/testing/index.js";
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

let server: ScriptedGemini;
afterEach(() => server.close());

async function gemini(script: ScriptedProviderTurn[], model = "gemini-2.5-flash") {
  server = await startScriptedGemini(script, { chunkSize: 4 });
  return createGoogleGenerativeAI({ baseURL: server.baseURL, apiKey: "gemini-key" })(model);
}

const usage = { inputTokens: 100, outputTokens: 40, cacheReadTokens: 60, reasoningTokens: 15 };
const includeThoughts = { google: { thinkingConfig: { includeThoughts: true } } };

describe("text and usage", () => {
  it("a whole answer: the text, STOP as stop, and usage with cached content and thoughts tokens", async () => {
    const model = await gemini([{ text: "Leg day: squats.", usage }]);
    const result = await model.doGenerate({ prompt: ask("Plan my leg day") });
    expect(result.content).toEqual([{ type: "text", text: "Leg day: squats." }]);
    expect(result.finishReason).toMatchObject({ unified: "stop", raw: "STOP" });
    expect(result.usage.inputTokens).toEqual({ total: 100, noCache: 40, cacheRead: 60, cacheWrite: undefined });
    expect(result.usage.outputTokens).toEqual({ total: 40, text: 25, reasoning: 15 });
    const request = server.requests[0]!;
    expect(request).toMatchObject({
      model: "gemini-2.5-flash",
      stream: false,
      path: "/v1beta/models/gemini-2.5-flash:generateContent",
    });
    expect(request.headers["x-goog-api-key"]).toBe("gemini-key");
    expect(request.body.contents).toEqual([{ role: "user", parts: [{ text: "Plan my leg day" }] }]);
  });

  it("a streamed answer (alt=sse): partial responses whose texts are the chunks, the usage on the last", async () => {
    const model = await gemini([{ text: "Leg day: squats.", usage }]);
    const parts = await streamParts(model, { prompt: ask("Plan my leg day") });
    expect(deltas(parts, "text-delta")).toEqual(["Leg ", "day:", " squ", "ats."]);
    const finish = finishOf(parts);
    expect(finish.finishReason.unified).toBe("stop");
    expect(finish.usage.inputTokens).toMatchObject({ total: 100, noCache: 40, cacheRead: 60 });
    expect(finish.usage.outputTokens).toEqual({ total: 40, text: 25, reasoning: 15 });
    expect(server.requests[0]).toMatchObject({
      stream: true,
      path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    });
  });
});

describe("function calls", () => {
  const calls = {
    toolCalls: [
      { name: "weather", arguments: { city: "Oslo" } },
      { name: "weather", arguments: { city: "Rome" } },
    ],
  };

  for (const streamed of [false, true]) {
    it(`parallel function calls, ${streamed ? "streamed" : "whole"}: each call's name and args, STOP with calls as tool-calls`, async () => {
      const model = await gemini([calls]);
      const options = { prompt: ask("Weather?"), tools: [weatherTool] };
      const parts = streamed ? await streamParts(model, options) : undefined;
      const result = parts
        ? { content: contentOf(parts), finishReason: finishOf(parts).finishReason }
        : await model.doGenerate(options);
      expect(result.content).toEqual([
        expect.objectContaining({ type: "tool-call", toolName: "weather", input: '{"city":"Oslo"}' }),
        expect.objectContaining({ type: "tool-call", toolName: "weather", input: '{"city":"Rome"}' }),
      ]);
      expect(result.finishReason.unified).toBe("tool-calls");
      expect(server.requests[0]!.body.tools).toEqual([
        { functionDeclarations: [expect.objectContaining({ name: "weather" })] },
      ]);
    });
  }
});

describe("reasoning", () => {
  for (const streamed of [false, true]) {
    it(`${streamed ? "streamed" : "whole"}: a thought, and the thought signature on the first of parallel calls, come back on trip 2 on the same parts`, async () => {
      const trip1 = {
        reasoning: { text: "The user wants the weather.", thoughtSignature: "ts-trip-1" },
        toolCalls: [
          { name: "weather", arguments: { city: "Oslo" } },
          { name: "weather", arguments: { city: "Rome" } },
        ],
      };
      const model = await gemini([trip1, "Oslo 4°C, Rome 15°C."]);
      const options = { tools: [weatherTool], providerOptions: includeThoughts };
      const answer = streamed
        ? contentOf(await streamParts(model, { prompt: ask("Weather?"), ...options }))
        : (await model.doGenerate({ prompt: ask("Weather?"), ...options })).content;
      expect(answer.find((part) => part.type === "reasoning")).toMatchObject({ text: "The user wants the weather." });
      const calls = answer.filter((part) => part.type === "tool-call");
      expect(calls.map((call) => call.providerMetadata)).toEqual([
        { google: { thoughtSignature: "ts-trip-1" } },
        undefined,
      ]);
      await model.doGenerate({ prompt: nextTrip("Weather?", answer), ...options });
      expect(server.requests[1]!.body.contents[1]).toEqual({
        role: "model",
        parts: [
          { text: "The user wants the weather.", thought: true },
          {
            functionCall: { id: calls[0]!.toolCallId, name: "weather", args: { city: "Oslo" } },
            thoughtSignature: "ts-trip-1",
          },
          { functionCall: { id: calls[1]!.toolCallId, name: "weather", args: { city: "Rome" } } },
        ],
      });
      expect(server.requests[1]!.body.contents[2]).toMatchObject({
        role: "user",
        parts: [{ functionResponse: { name: "weather" } }, { functionResponse: { name: "weather" } }],
      });
    });

    it(`${streamed ? "streamed" : "whole"}: without calls, the signature is on the answer's text, and comes back on it`, async () => {
      const model = await gemini([
        { reasoning: { text: "Short.", signature: "ts-text" }, text: "Hello there." },
        "Again.",
      ]);
      const answer = streamed
        ? contentOf(await streamParts(model, { prompt: ask("Hi"), providerOptions: includeThoughts }))
        : (await model.doGenerate({ prompt: ask("Hi"), providerOptions: includeThoughts })).content;
      expect(answer).toEqual([
        expect.objectContaining({ type: "reasoning", text: "Short." }),
        expect.objectContaining({
          type: "text",
          text: "Hello there.",
          providerMetadata: { google: { thoughtSignature: "ts-text" } },
        }),
      ]);
      await model.doGenerate({ prompt: nextTrip("Hi", answer) });
      expect(server.requests[1]!.body.contents[1]).toEqual({
        role: "model",
        parts: [
          { text: "Short.", thought: true },
          { text: "Hello there.", thoughtSignature: "ts-text" },
        ],
      });
    });
  }

  it("streamed thoughts arrive as reasoning deltas before the text", async () => {
    const model = await gemini([{ reasoning: { text: "Think twice." }, text: "Done." }]);
    const parts = await streamParts(model, { prompt: ask("Go"), providerOptions: includeThoughts });
    expect(deltas(parts, "reasoning-delta")).toEqual(["Thin", "k tw", "ice."]);
    expect(deltas(parts, "text-delta").join("")).toBe("Done.");
  });
});

describe("structured output", () => {
  it("asks with responseMimeType application/json and a schema, and reads the JSON text", async () => {
    const model = await gemini([{ json: { day: "legs", sets: 5 } }]);
    const result = await model.doGenerate({
      prompt: ask("Plan"),
      responseFormat: { type: "json", schema: planSchema },
    });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({ day: "legs", sets: 5 });
    expect(server.requests[0]!.body.generationConfig).toMatchObject({ responseMimeType: "application/json" });
  });
});

describe("errors, as the package classifies them", () => {
  it("429 RESOURCE_EXHAUSTED with Retry-After (and a RetryInfo in the body): retryable, the header on the error", async () => {
    const model = await gemini([{ error: "rate-limit", retryAfter: 34 }]);
    const error = await apiCallError(model.doGenerate({ prompt: ask("hi") }));
    expect(error).toMatchObject({
      statusCode: 429,
      isRetryable: true,
      data: { error: { status: "RESOURCE_EXHAUSTED" } },
    });
    expect(error.responseHeaders?.["retry-after"]).toBe("34");
    expect(JSON.parse(error.responseBody!).error.details).toEqual([
      { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "34s" },
    ]);
  });

  it("503 UNAVAILABLE (overloaded): retryable; 400 INVALID_ARGUMENT and 401 UNAUTHENTICATED: not retryable", async () => {
    const model = await gemini([{ error: "overloaded" }, { error: "bad-request" }, { error: "auth" }]);
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
      data: { error: { status: "UNAUTHENTICATED" } },
    });
  });

  it("an error inside a started stream: an error part with its status and retryability, after the text so far", async () => {
    const model = await gemini([{ text: "Leg day: squats.", failAfterEvents: 2 }]);
    const parts = await streamParts(model, { prompt: ask("hi") });
    expect(deltas(parts, "text-delta")).toEqual(["Leg ", "day:"]);
    expect(parts.find((part) => part.type === "error")).toMatchObject({
      error: { statusCode: 503, isRetryable: true, type: "UNAVAILABLE" },
    });
    expect(finishOf(parts).finishReason.unified).toBe("error");
  });

  it("SAFETY is the content filter, MAX_TOKENS the length", async () => {
    const model = await gemini([
      { text: "I can't", finish: "content-filter" },
      { text: "Cut", finish: "length" },
    ]);
    expect((await model.doGenerate({ prompt: ask("hi") })).finishReason).toMatchObject({
      unified: "content-filter",
      raw: "SAFETY",
    });
    expect(finishOf(await streamParts(model, { prompt: ask("hi") })).finishReason).toMatchObject({
      unified: "length",
      raw: "MAX_TOKENS",
    });
  });

  it("a stream request without alt=sse gets a 404 naming the route", async () => {
    server = await startScriptedGemini(["never sent"]);
    const response = await fetch(`${server.baseURL}/models/gemini-2.5-flash:streamGenerateContent`, {
      method: "POST",
      body: "{}",
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({
      error: { code: 404, status: "NOT_FOUND", message: expect.stringContaining(":streamGenerateContent") },
    });
    expect(server.requests).toEqual([]);
  });
});
