import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UIMessageChunk } from "ai";
import { ai } from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { chunkTypes, messageOf, readUIStream, textsOf } from "./support/ui-stream-helpers.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const ANSWER = "Lunges are in, and moonwalks are not in the library, so squats stay out.";

describe("handle.toUIMessageStreamResponse", () => {
  it("carries text in several deltas, tool input and output parts, a refused tool, steps and the finish, read by the AI SDK's parser", async () => {
    const model = await startScriptedModel(
      [
        {
          text: "Let me swap them.",
          toolCalls: [
            { name: "update_plan", arguments: { from: "squats", to: "lunges" } },
            { name: "update_plan", arguments: { from: "squats", to: "moonwalks" } },
          ],
        },
        ANSWER,
      ],
      { chunksPerSecond: 20, chunkSize: 6, usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
    );
    const agent = ai.agent({
      name: "ui-text-tools",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [updatePlanTool()],
    });
    const { read, result } = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Swap squats for lunges", {
        client: harness.client,
        taskQueue,
        streamText: true,
      });
      const response = handle.toUIMessageStreamResponse();
      expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
      expect(response.headers.get("content-type")).toBe("text/event-stream");
      return { read: await readUIStream(response), result: await handle.result() };
    });
    await model.close();
    expect(read.done).toBe(true);
    expect(read.chunks[0]).toEqual({ type: "start", messageId: result.workflowId });
    expect(read.chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    expect(read.chunks.filter((c) => c.type === "text-delta").length).toBeGreaterThan(3);
    expect(chunkTypes(read.chunks)).toEqual([
      "start",
      "start-step",
      "text-start",
      "text-delta",
      "text-end",
      "data-usage",
      "tool-input-available",
      "tool-input-available",
      "tool-output-available",
      "tool-output-error",
      "finish-step",
      "start-step",
      "text-start",
      "text-delta",
      "text-end",
      "data-usage",
      "data-stopped",
      "finish-step",
      "finish",
    ]);
    const [first, second] = result.toolCalls;
    const message = await messageOf(read.chunks);
    expect(message.id).toBe(result.workflowId);
    expect(textsOf(message)).toEqual(["Let me swap them.", ANSWER]);
    const tools = message.parts.filter((p) => p.type === "tool-update_plan");
    expect(tools).toMatchObject([
      {
        toolCallId: first!.id,
        state: "output-available",
        input: { from: "squats", to: "lunges" },
        output: { ok: true },
      },
      {
        toolCallId: second!.id,
        state: "output-error",
        input: { from: "squats", to: "moonwalks" },
        errorText: "refused: moonwalks is not in the library",
      },
    ]);
    expect(message.parts.filter((p) => p.type === "step-start")).toHaveLength(2);
    expect(message.parts.find((p) => p.type === "data-stopped")).toMatchObject({
      data: { stopReason: "answered" },
    });
    expect(message.parts.find((p) => p.type === "data-usage")).toMatchObject({
      data: { modelCalls: 2, inputTokens: 20, outputTokens: 10, totalTokens: 30 },
    });
    // Every chunk but start has an SSE id, and the ids grow.
    expect(read.ids[0]).toBeUndefined();
    expect(read.ids.slice(1).every((id) => typeof id === "string" && id.length > 0)).toBe(true);
  });
});

/** The text deltas of a read, joined. */
export const deltaText = (chunks: UIMessageChunk[]) =>
  chunks.flatMap((c) => (c.type === "text-delta" ? [c.delta] : [])).join("");
