/**
 * The three scripted provider servers side by side: one provider-neutral script runs against
 * each, through its real provider package, and reads the same; and each breaks a stream the same
 * ways (cut, reset, ended early, stalled), which the packages report as their own errors.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4StreamPart,
} from "@ai-sdk/provider";
import { APICallError } from "@ai-sdk/provider";
import { afterEach, describe, expect, it } from "vitest";
import {
  startScriptedAnthropic,
  startScriptedGemini,
  startScriptedResponses,
  type ScriptedProviderHandler,
  type ScriptedProviderOptions,
  type ScriptedProviderServer,
  type ScriptedProviderTurn,
} from "../src/testing/index.js";
import { ask, contentOf, deltas, finishOf, streamParts, weatherTool } from "./support/provider-helpers.js";

interface Protocol {
  name: string;
  start(
    script: ScriptedProviderTurn[] | ScriptedProviderHandler<never>,
    options: ScriptedProviderOptions,
  ): Promise<ScriptedProviderServer<unknown>>;
  model(baseURL: string): LanguageModelV4;
  /** Call options that ask for reasoning with its metadata. */
  reasoning: Pick<LanguageModelV4CallOptions, "providerOptions">;
  /** Where the package put the reasoning's signature in the answer. */
  signature(content: LanguageModelV4Content[]): unknown;
  /** The events of a text answer before its first text delta. */
  eventsBeforeText: number;
}

const metadataOf = (part: LanguageModelV4Content | undefined, provider: string, field: string) =>
  part && "providerMetadata" in part ? part.providerMetadata?.[provider]?.[field] : undefined;

const protocols: Protocol[] = [
  {
    name: "Anthropic Messages",
    start: (script, options) => startScriptedAnthropic(script as ScriptedProviderTurn[], options),
    model: (baseURL) => createAnthropic({ baseURL, apiKey: "k" })("claude-sonnet-4-5"),
    reasoning: { providerOptions: { anthropic: { thinking: { type: "enabled", budgetTokens: 1024 } } } },
    signature: (content) =>
      metadataOf(
        content.find((part) => part.type === "reasoning"),
        "anthropic",
        "signature",
      ),
    eventsBeforeText: 3, // message_start, content_block_start, ping
  },
  {
    name: "Gemini",
    start: (script, options) => startScriptedGemini(script as ScriptedProviderTurn[], options),
    model: (baseURL) => createGoogleGenerativeAI({ baseURL, apiKey: "k" })("gemini-2.5-flash"),
    reasoning: { providerOptions: { google: { thinkingConfig: { includeThoughts: true } } } },
    signature: (content) =>
      metadataOf(
        content.find((part) => part.type === "tool-call"),
        "google",
        "thoughtSignature",
      ),
    eventsBeforeText: 0,
  },
  {
    name: "OpenAI Responses",
    start: (script, options) => startScriptedResponses(script as ScriptedProviderTurn[], options),
    model: (baseURL) => createOpenAI({ baseURL, apiKey: "k" }).responses("o4-mini"),
    reasoning: { providerOptions: { openai: { store: false, reasoningSummary: "auto" } } },
    signature: (content) =>
      metadataOf(
        content.find((part) => part.type === "reasoning"),
        "openai",
        "reasoningEncryptedContent",
      ),
    eventsBeforeText: 4, // response.created, response.in_progress, output_item.added, content_part.added
  },
];

let server: ScriptedProviderServer<unknown>;
afterEach(() => server.close());

const neutral: ScriptedProviderTurn = {
  reasoning: { text: "Two cities.", signature: "sig-1" },
  text: "Checking both.",
  toolCalls: [
    { name: "weather", arguments: { city: "Oslo" } },
    { name: "weather", arguments: { city: "Rome" } },
  ],
  usage: { inputTokens: 100, outputTokens: 40, cacheReadTokens: 60, reasoningTokens: 15 },
};

describe.each(protocols)("$name", (protocol) => {
  async function start(script: ScriptedProviderTurn[] | ScriptedProviderHandler<never>) {
    server = await protocol.start(script, { chunkSize: 4 });
    return protocol.model(server.baseURL);
  }

  for (const streamed of [false, true]) {
    it(`one provider-neutral answer, ${streamed ? "streamed" : "whole"}: the same reasoning, text, parallel calls and usage, and the signature in the provider's metadata`, async () => {
      const model = await start([neutral]);
      const options = { prompt: ask("Weather in Oslo and Rome?"), tools: [weatherTool], ...protocol.reasoning };
      const parts = streamed ? await streamParts(model, options) : undefined;
      const result = parts
        ? { content: contentOf(parts), usage: finishOf(parts).usage, finishReason: finishOf(parts).finishReason }
        : await model.doGenerate(options);
      const texts = (type: string) =>
        result.content.flatMap((part) => (part.type === type && "text" in part ? [part.text] : [])).join("");
      expect(texts("reasoning")).toBe("Two cities.");
      expect(texts("text")).toBe("Checking both.");
      expect(
        result.content.flatMap((part) => (part.type === "tool-call" ? [[part.toolName, JSON.parse(part.input)]] : [])),
      ).toEqual([
        ["weather", { city: "Oslo" }],
        ["weather", { city: "Rome" }],
      ]);
      expect(result.finishReason.unified).toBe("tool-calls");
      expect(result.usage.inputTokens).toMatchObject({ total: 100, noCache: 40, cacheRead: 60 });
      expect(result.usage.outputTokens).toMatchObject({ total: 40, reasoning: 15 });
      expect(protocol.signature(result.content)).toBe("sig-1");
    });
  }

  it("a handler answers from the request it is given, and records what it was asked", async () => {
    const model = await start(
      (request: { body: unknown }) => `You said: ${JSON.stringify(request.body).includes("ping") ? "ping" : "?"}`,
    );
    expect((await model.doGenerate({ prompt: ask("ping") })).content).toEqual([
      expect.objectContaining({ type: "text", text: "You said: ping" }),
    ]);
    expect(server.requests).toHaveLength(1);
  });

  it("a status turn is sent as it is: status, JSON body and headers", async () => {
    const model = await start([{ status: 418, body: { teapot: true }, headers: { "x-scripted": "yes" } }]);
    const error = await Promise.resolve(model.doGenerate({ prompt: ask("hi") })).catch((failure: unknown) => failure);
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      statusCode: 418,
      isRetryable: false,
      responseBody: '{"teapot":true}',
      responseHeaders: { "x-scripted": "yes" },
    });
  });

  for (const [cutBy, cause] of [
    ["close", "UND_ERR_SOCKET"],
    ["reset", "ECONNRESET"],
  ] as const) {
    it(`a stream cut mid-answer by "${cutBy}": an APICallError (200, retryable, caused by undici's terminated ← ${cause}) after the text so far`, async () => {
      const model = await start([
        { text: "Leg day: squats and lunges.", cutAfterEvents: protocol.eventsBeforeText + 2, cutBy },
      ]);
      const parts = await streamParts(model, { prompt: ask("hi") });
      expect(deltas(parts, "text-delta")).toEqual(["Leg ", "day:"]);
      expect(parts.some((part) => part.type === "finish")).toBe(false);
      const error = (parts.at(-1) as Extract<LanguageModelV4StreamPart, { type: "error" }>).error;
      expect(APICallError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        statusCode: 200,
        isRetryable: true,
        message: "Failed to process successful response",
      });
      const terminated = (error as APICallError).cause as Error & { cause?: { code?: string } };
      expect(terminated.message).toBe("terminated");
      expect(terminated.cause?.code).toBe(cause);
    });
  }

  it('a stream that ends cleanly before its last event ("end"): no error, the finish reason is interrupted and usage unknown', async () => {
    const model = await start([
      {
        text: "Leg day: squats and lunges.",
        usage: { inputTokens: 5, outputTokens: 5 },
        cutAfterEvents: protocol.eventsBeforeText + 2,
        cutBy: "end",
      },
    ]);
    const parts = await streamParts(model, { prompt: ask("hi") });
    expect(deltas(parts, "text-delta")).toEqual(["Leg ", "day:"]);
    expect(parts.some((part) => part.type === "error")).toBe(false);
    const finish = finishOf(parts);
    expect(finish.finishReason.unified).toBe("interrupted");
    expect(finish.usage.outputTokens.total).toBeUndefined();
  });

  it("a stalled stream sends its first events, then nothing, until the client aborts and the connection closes", async () => {
    const model = await start([
      { text: "Leg day: squats and lunges.", stallAfterEvents: protocol.eventsBeforeText + 2 },
    ]);
    const abort = new AbortController();
    const { stream } = await model.doStream({ prompt: ask("hi"), abortSignal: abort.signal });
    const reader = stream.getReader();
    const seen: LanguageModelV4StreamPart[] = [];
    while (deltas(seen, "text-delta").length < 2) seen.push((await reader.read()).value!);
    const next = reader.read().catch((error: unknown) => ({ error }));
    abort.abort();
    expect(await next).toMatchObject({ error: expect.objectContaining({ name: "AbortError" }) });
    await server.requests[0]!.closed;
    expect(deltas(seen, "text-delta")).toEqual(["Leg ", "day:"]);
  });
});
