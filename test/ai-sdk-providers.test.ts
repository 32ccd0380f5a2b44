/**
 * Issue 31 on the OpenAI Responses and Gemini paths: `@ai-sdk/openai`'s `.responses()` and
 * `@ai-sdk/google` against the scripted Responses and Gemini servers. Parallel tool calls with the
 * reasoning carried to the next trip as each provider needs it (a Responses reasoning item with its
 * id and encrypted content; a Gemini thought and its signature on the first call, or on the text),
 * streaming, usage with cache tokens, typed output and images in tool results.
 */
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type RunResult, type StreamedRunEvent } from "../src/index.js";
import { startScriptedGemini, startScriptedResponses } from "../src/testing/index.js";
import { updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const usage = { inputTokens: 100, outputTokens: 40, cacheReadTokens: 60, reasoningTokens: 15 };
const twoSwaps = [
  { name: "update_plan", arguments: { from: "squats", to: "lunges" } },
  { name: "update_plan", arguments: { from: "rows", to: "pullups" } },
];

async function run(
  agent: ReturnType<typeof ai.agent>,
  input: string,
  streamText: boolean,
): Promise<{ result: RunResult; deltas: string }> {
  return withWorker(harness, [agent], async ({ taskQueue }) => {
    if (!streamText) return { result: await agent.run(input, { client: harness.client, taskQueue }), deltas: "" };
    const events: StreamedRunEvent[] = [];
    for await (const event of await agent.stream(input, { client: harness.client, taskQueue })) events.push(event);
    const finished = events.at(-1) as Extract<StreamedRunEvent, { type: "run.finished" }>;
    return {
      result: finished.result,
      deltas: events.flatMap((e) => (e.type === "text.delta" ? [e.text] : [])).join(""),
    };
  });
}

describe("OpenAI Responses (store: false)", () => {
  for (const streamText of [false, true]) {
    it(`parallel calls; the reasoning item's id and encrypted content go back on trip 2; usage with cached and reasoning tokens (${streamText ? "streamed" : "whole"})`, async () => {
      const server = await startScriptedResponses(
        [
          { reasoning: { text: "Swap both.", encryptedContent: "enc-1" }, toolCalls: twoSwaps, usage },
          { text: "Swapped both.", usage },
        ],
        { chunkSize: 5 },
      );
      try {
        const model = ai.model(createOpenAI({ baseURL: server.baseURL, apiKey: "sk-test" }).responses("o4-mini"), {
          providerOptions: { openai: { store: false, reasoningSummary: "auto" } },
        });
        const agent = ai.agent({ name: `responses-loop-${streamText}`, model, tools: [updatePlanTool()] });
        const { result, deltas } = await run(agent, "Swap squats and rows", streamText);
        expect(result.reply).toBe("Swapped both.");
        if (streamText) expect(deltas).toBe("Swapped both.");
        expect(server.requests[0]!.body.include).toContain("reasoning.encrypted_content");
        const input = server.requests[1]!.body.input as unknown[];
        expect(input.slice(1, 4)).toEqual([
          {
            type: "reasoning",
            id: "rs_scripted_0_0",
            encrypted_content: "enc-1",
            summary: [{ type: "summary_text", text: "Swap both." }],
          },
          {
            type: "function_call",
            call_id: "call_scripted_0_0",
            name: "update_plan",
            arguments: '{"from":"squats","to":"lunges"}',
          },
          {
            type: "function_call",
            call_id: "call_scripted_0_1",
            name: "update_plan",
            arguments: '{"from":"rows","to":"pullups"}',
          },
        ]);
        expect(input.slice(4)).toEqual([
          { type: "function_call_output", call_id: "call_scripted_0_0", output: '{"ok":true}' },
          { type: "function_call_output", call_id: "call_scripted_0_1", output: '{"ok":true}' },
        ]);
        expect(result.usage).toEqual({
          inputTokens: 200,
          outputTokens: 80,
          totalTokens: 280,
          cachedInputTokens: 120,
          reasoningTokens: 30,
          modelCalls: 2,
        });
      } finally {
        await server.close();
      }
    });
  }

  it("typed output as text.format json_schema; an image a tool returns goes back inside its function_call_output", async () => {
    const png = Buffer.alloc(40, 3).toString("base64");
    const snapshot = ai.tool({
      name: "snapshot",
      input: z.object({}),
      execute: async () => ({ content: [{ type: "image", data: png, mimeType: "image/png" }] }),
    });
    const server = await startScriptedResponses([
      { toolCalls: [{ name: "snapshot", arguments: {} }] },
      { json: { exercise: "lunges" } },
    ]);
    try {
      const agent = ai.agent({
        name: "responses-output",
        model: createOpenAI({ baseURL: server.baseURL, apiKey: "sk-test" }).responses("gpt-5"),
        tools: [snapshot],
        output: z.object({ exercise: z.string() }),
      });
      const { result } = await run(agent, "Look and pick", false);
      expect(result.output).toEqual({ exercise: "lunges" });
      expect(server.requests[0]!.body.text).toMatchObject({ format: { type: "json_schema" } });
      const output = (server.requests[1]!.body.input as Array<{ type?: string; output?: unknown }>).find(
        (item) => item.type === "function_call_output",
      )!;
      expect(output.output).toEqual([{ type: "input_image", image_url: `data:image/png;base64,${png}` }]);
    } finally {
      await server.close();
    }
  });
});

describe("Gemini", () => {
  const includeThoughts = { google: { thinkingConfig: { includeThoughts: true } } };

  for (const streamText of [false, true]) {
    it(`parallel calls; the thought and its signature on the first call go back on trip 2; the signature on a text answer too (${streamText ? "streamed" : "whole"})`, async () => {
      const server = await startScriptedGemini(
        [
          { reasoning: { text: "Swap both.", thoughtSignature: "ts-1" }, toolCalls: twoSwaps, usage },
          { reasoning: { text: "Confirm.", thoughtSignature: "ts-2" }, text: "Swapped both.", usage },
          "Anything else?",
        ],
        { chunkSize: 5 },
      );
      try {
        const model = ai.model(
          createGoogleGenerativeAI({ baseURL: server.baseURL, apiKey: "gemini-key" })("gemini-2.5-flash"),
          { providerOptions: includeThoughts },
        );
        const agent = ai.agent({ name: `gemini-loop-${streamText}`, model, tools: [updatePlanTool()] });
        const { result } = await run(agent, "Swap squats and rows", streamText);
        expect(result.reply).toBe("Swapped both.");
        const second = server.requests[1]!.body.contents as Array<{
          role: string;
          parts: Array<Record<string, unknown>>;
        }>;
        expect(second[1]).toEqual({
          role: "model",
          parts: [
            { text: "Swap both.", thought: true },
            {
              functionCall: expect.objectContaining({ name: "update_plan", args: { from: "squats", to: "lunges" } }),
              thoughtSignature: "ts-1",
            },
            { functionCall: expect.objectContaining({ name: "update_plan", args: { from: "rows", to: "pullups" } }) },
          ],
        });
        expect(second[2]!.parts.map((part) => Object.keys(part))).toEqual([["functionResponse"], ["functionResponse"]]);
        expect(result.messages.at(-1)).toMatchObject({
          content: "Swapped both.",
          textMetadata: { google: { thoughtSignature: "ts-2" } },
        });
        expect(result.usage).toMatchObject({
          inputTokens: 200,
          cachedInputTokens: 120,
          reasoningTokens: 30,
          modelCalls: 2,
        });

        // A session's next message sends the text answer's signature back on the text.
        const session = ai.agent({ name: `gemini-session-${streamText}`, model, tools: [updatePlanTool()] });
        await withWorker(harness, [session], async ({ taskQueue }) => {
          await session.run([...result.messages, { role: "user", content: "Thanks" }], {
            client: harness.client,
            taskQueue,
          });
        });
        const third = server.requests[2]!.body.contents as Array<{
          role: string;
          parts: Array<Record<string, unknown>>;
        }>;
        expect(third[3]).toEqual({
          role: "model",
          parts: [
            { text: "Confirm.", thought: true },
            { text: "Swapped both.", thoughtSignature: "ts-2" },
          ],
        });
      } finally {
        await server.close();
      }
    });
  }

  it("typed output as responseJsonSchema, parsed", async () => {
    const server = await startScriptedGemini([{ json: { exercise: "lunges" } }]);
    try {
      const agent = ai.agent({
        name: "gemini-output",
        model: createGoogleGenerativeAI({ baseURL: server.baseURL, apiKey: "gemini-key" })("gemini-2.5-flash"),
        output: z.object({ exercise: z.string() }),
      });
      const { result } = await run(agent, "Pick one", true);
      expect(result.output).toEqual({ exercise: "lunges" });
      expect(server.requests[0]!.body.generationConfig).toMatchObject({
        responseMimeType: "application/json",
        responseJsonSchema: expect.objectContaining({ type: "object" }),
      });
    } finally {
      await server.close();
    }
  });

  it("an image a tool returns goes back as inline data, not base64 text", async () => {
    const png = Buffer.alloc(40, 4).toString("base64");
    const snapshot = ai.tool({
      name: "snapshot",
      input: z.object({}),
      execute: async () => ({
        content: [
          { type: "text", text: "The plan:" },
          { type: "image", data: png, mimeType: "image/png" },
        ],
      }),
    });
    const server = await startScriptedGemini([
      { toolCalls: [{ name: "snapshot", arguments: {} }] },
      "Three exercises.",
    ]);
    try {
      const agent = ai.agent({
        name: "gemini-image",
        model: createGoogleGenerativeAI({ baseURL: server.baseURL, apiKey: "gemini-key" })("gemini-2.5-flash"),
        tools: [snapshot],
      });
      await run(agent, "Look", false);
      const sent = JSON.stringify(server.requests[1]!.body.contents);
      expect(sent).toContain(`"inlineData":{"mimeType":"image/png","data":"${png}"}`);
      expect(sent.split(png)).toHaveLength(2); // once, as the image
    } finally {
      await server.close();
    }
  });
});
