/**
 * Issue 27, item 1: every request shape the library sends is one that OpenAI and the common local
 * servers all accept. An assistant message is sent with string content (`""` for a tool-call-only
 * answer, never null: llama.cpp's server aborts on null with `response_format: json_schema`);
 * a tool result is `{ role: "tool", tool_call_id, content: string }`; content parts go as an array
 * of typed parts. The same requests run on llama.cpp in test/real-model (npm run test:real-model).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ai } from "../src/index.js";
import { startScriptedModel, type ScriptedRequest, type ScriptedTurn } from "../src/testing/index.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { conversation, requestShapes, shapeOptions, type RequestShape } from "./support/request-shapes.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

async function requestsOf(
  shape: RequestShape,
  script: ScriptedTurn[],
  input: Parameters<ReturnType<typeof ai.agent>["run"]>[0] = conversation,
): Promise<ScriptedRequest[]> {
  const model = await startScriptedModel(script);
  try {
    const agent = ai.agent({ ...shapeOptions(shape), model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run(input, { client: harness.client, taskQueue }),
    );
    expect(result.stopReason).toBe("answered");
    return model.requests;
  } finally {
    await model.close();
  }
}

const answerFor = (shape: RequestShape) =>
  shape.output ? JSON.stringify({ exercise: "lunges", sets: 3 }) : "Lunges, 3 sets.";

/** Every assistant message of a request: content is a string, and a tool call has the Chat Completions shape. */
function expectStringAssistantContent(request: ScriptedRequest) {
  const assistants = request.body.messages.filter((m) => m.role === "assistant");
  expect(assistants.length).toBeGreaterThan(0);
  for (const message of assistants) expect(typeof message.content).toBe("string");
}

describe("request shapes (issue 27)", () => {
  for (const shape of requestShapes) {
    it(`${shape.name}: a conversation input's tool-call-only assistant message goes with content "" (not null), its tool result and the content parts as sent`, async () => {
      const [request] = await requestsOf(shape, [answerFor(shape)]);
      const messages = request!.body.messages;
      expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);
      expect(messages[2]).toEqual({
        role: "assistant",
        content: "",
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "update_plan", arguments: '{"from":"squats","to":"lunges"}' },
          },
        ],
      });
      expect(messages[3]).toEqual({
        role: "tool",
        tool_call_id: "call_1",
        content: '{"ok":true,"replaced":"squats","with":"lunges"}',
      });
      expect(messages[4]).toEqual({ role: "assistant", content: "Done: squats are now lunges." });
      expect(messages[5]).toEqual({
        role: "user",
        content: [
          { type: "text", text: "Now give me one exercise for my legs" },
          { type: "text", text: "and how many sets." },
        ],
      });
      expect(request!.body.tools !== undefined).toBe(shape.tools);
      expect((request!.body.response_format as { type?: string } | undefined)?.type).toBe(
        shape.output ? "json_schema" : undefined,
      );
      expectStringAssistantContent(request!);
    });
  }

  it('output-with-tools: the model\'s own tool-call-only answer (content null on the wire) comes back on the next trip with content "", beside response_format', async () => {
    const shape = requestShapes.find((s) => s.name === "output-with-tools")!;
    const requests = await requestsOf(
      shape,
      [
        { toolCalls: [{ id: "call_9", name: "update_plan", arguments: { from: "planks", to: "side planks" } }] },
        answerFor(shape),
      ],
      "Swap planks for side planks",
    );
    expect(requests).toHaveLength(2);
    const second = requests[1]!;
    expect(second.body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "output", strict: true },
    });
    expect(second.body.messages.slice(1)).toEqual([
      { role: "user", content: "Swap planks for side planks" },
      {
        role: "assistant",
        content: "",
        tool_calls: [
          {
            id: "call_9",
            type: "function",
            function: { name: "update_plan", arguments: '{"from":"planks","to":"side planks"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_9", content: '{"ok":true,"replaced":"planks","with":"side planks"}' },
    ]);
  });

  it("responseFormatWithTools: false (llama.cpp): a call that offers tools asks for the output in the instructions, without response_format; a call without tools keeps response_format", async () => {
    for (const shape of requestShapes.filter((s) => s.output)) {
      const model = await startScriptedModel([answerFor(shape)]);
      try {
        const agent = ai.agent({
          ...shapeOptions(shape),
          name: `${shapeOptions(shape).name}-no-rf`,
          model: ai.openai("gpt-test", { baseURL: model.baseURL, responseFormatWithTools: false }),
        });
        const result = await withWorker(harness, [agent], ({ taskQueue }) =>
          agent.run(conversation, { client: harness.client, taskQueue }),
        );
        expect(result.output).toEqual({ exercise: "lunges", sets: 3 });
        const [request] = model.requests;
        const system = String(request!.body.messages[0]!.content);
        if (shape.tools) {
          expect(request!.body.tools).toHaveLength(1);
          expect(request!.body.response_format).toBeUndefined();
          expect(system).toContain(
            "reply with only a JSON value (no prose, no code fence) that matches this JSON schema:",
          );
        } else {
          expect(request!.body.response_format).toMatchObject({ type: "json_schema" });
          expect(system).not.toContain("JSON schema");
        }
      } finally {
        await model.close();
      }
    }
  });

  it("responseFormatWithTools must be a boolean", () => {
    expect(() => ai.openai("gpt-test", { responseFormatWithTools: "no" as never })).toThrow(
      /responseFormatWithTools.*must be true or false/,
    );
  });
});
