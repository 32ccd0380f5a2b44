/**
 * Issue 13, item 6: images in the input. User messages may carry OpenAI content parts, which reach
 * the model as sent; intents and backstops see the text parts joined; a data URL over Temporal's
 * payload limit is refused on the client before the run starts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, InvalidInputError, PayloadTooLargeError, type Message } from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { swap, updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, taskQueue, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const photo = (url: string): Message[] => [
  {
    role: "user",
    content: [
      { type: "text", text: "This is my squat." },
      { type: "image_url", image_url: { url, detail: "low" } },
      { type: "text", text: "Swap it for something easier on the knees." },
    ],
  },
];

describe("images in the input", () => {
  it("content parts reach the model as sent; intents and backstops see the text parts joined", async () => {
    const seen: string[] = [];
    const model = await startScriptedModel(["Want me to swap it?", swap("lunges"), "Done."]);
    const agent = ai.agent({
      name: "image-coach",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [updatePlanTool()],
      actWhenAsked: { intents: [/\bswap\b/i], requiredTools: ["update_plan"] },
      backstops: [
        { name: "see", phase: "before", detect: (turn) => (seen.push(turn.input), false), run: () => undefined },
      ],
    });
    const input = photo("https://example.com/squat.png");
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run(input, { client: harness.client, taskQueue }),
    );
    expect(model.requests[0]!.body.messages[0]).toEqual({
      role: "user",
      content: (input[0] as { content: unknown }).content,
    });
    expect(seen).toEqual(["This is my squat.\nSwap it for something easier on the knees."]);
    expect(result.trace.filter((e) => e.type === "reprompt").map((e) => e.type === "reprompt" && e.kind)).toEqual([
      "act-when-asked",
    ]);
    expect(result.messages[0]).toEqual(input[0]);
    await model.close();
  });

  it("a small data URL is sent as is", async () => {
    const model = await startScriptedModel(["A squat."]);
    const agent = ai.agent({ name: "image-data-url", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const url = `data:image/png;base64,${Buffer.alloc(64 * 1024, 7).toString("base64")}`;
    await withWorker(harness, [agent], ({ taskQueue }) => agent.run(photo(url), { client: harness.client, taskQueue }));
    expect(
      (model.requests[0]!.body.messages[0]!.content as Array<{ image_url?: { url: string } }>)[1]!.image_url!.url,
    ).toBe(url);
    await model.close();
  });

  it("a data URL over the payload limit: PayloadTooLargeError on the client, before the run starts, with a hint to pass a URL", async () => {
    const agent = ai.agent({ name: "image-too-big", model: ai.openai("gpt-test") });
    const url = `data:image/png;base64,${Buffer.alloc(2 * 1024 * 1024, 7).toString("base64")}`;
    const workflowId = `image-too-big-${Date.now()}`;
    const error = await agent
      .start(photo(url), { client: harness.client, taskQueue: taskQueue(), workflowId })
      .catch((e: unknown) => e);
    expect(PayloadTooLargeError.isInstance(error)).toBe(true);
    expect((error as PayloadTooLargeError).message).toMatch(
      /The run input is \d+ bytes, over Temporal's payload limit of \d+ bytes; Images given as data: URLs .* pass an https URL to the image instead\./,
    );
    await expect(harness.client.workflow.getHandle(workflowId).describe()).rejects.toThrow(/not found/i);
  });

  it("malformed content parts are an InvalidInputError", async () => {
    const agent = ai.agent({ name: "image-bad", model: ai.openai("gpt-test") });
    await expect(
      agent.start([{ role: "user", content: [{ type: "image_url", image_url: {} }] }] as never),
    ).rejects.toSatisfy((e: unknown) => InvalidInputError.isInstance(e));
    await expect(agent.start([{ role: "user", content: [] }] as never)).rejects.toSatisfy((e: unknown) =>
      InvalidInputError.isInstance(e),
    );
  });
});

describe("images tools return (issue 31), on ai.openai()", () => {
  it("Chat Completions tool messages carry text: the image is named there without its base64, and sent in a user message after the tool results", async () => {
    const png = Buffer.alloc(64, 2).toString("base64");
    const snapshot = ai.tool({
      name: "snapshot",
      input: z.object({}),
      execute: async () => ({
        content: [
          { type: "text", text: "Your squat:" },
          { type: "image", data: png, mimeType: "image/png" },
        ],
      }),
    });
    const model = await startScriptedModel([
      {
        toolCalls: [
          { name: "snapshot", arguments: {} },
          { name: "update_plan", arguments: { from: "squats", to: "lunges" } },
        ],
      },
      "Your knees cave in; lunges it is.",
    ]);
    const agent = ai.agent({
      name: "image-tool-result",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [snapshot, updatePlanTool()],
    });
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("Look at my squat", { client: harness.client, taskQueue }),
    );
    const sent = model.requests[1]!.body.messages;
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "user"]);
    expect(JSON.parse(String(sent[2]!.content))).toEqual({
      content: [
        { type: "text", text: "Your squat:" },
        { type: "image", mimeType: "image/png", data: "[image 1, image/png: sent as an image after the tool results]" },
      ],
    });
    expect(sent[4]!.content).toEqual([
      { type: "text", text: "The images the tool results above returned (1 from snapshot), in order:" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
    ]);
    // The conversation keeps the result as the tool returned it.
    expect(result.messages[2]).toMatchObject({
      role: "tool",
      content: JSON.stringify({
        content: [
          { type: "text", text: "Your squat:" },
          { type: "image", data: png, mimeType: "image/png" },
        ],
      }),
    });
    await model.close();
  });
});
