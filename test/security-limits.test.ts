/** Issue 9, item 3: limits on what the model may ask for and what tools may return, settable and checked. */
import type { ChatCompletion } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AgentOptionsError,
  ai,
  DEFAULT_LIMITS,
  ModelApiError,
  PayloadTooLargeError,
  TooManyToolCallsError,
  type AgentLimits,
  type Tool,
} from "../src/index.js";
import { limitsOf, omittedArguments, truncateOutput } from "../src/limits.js";
import { validateAnswer } from "../src/models/validate-answer.js";
import { startScriptedModel, type ScriptedTurn } from "../src/testing/index.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

async function runScript(script: ScriptedTurn[], tools: Tool[], limits?: AgentLimits) {
  const model = await startScriptedModel(script);
  try {
    const agent = ai.agent({
      name: "limits-agent",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools,
      limits,
    });
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("Swap squats for lunges", { client: harness.client, taskQueue }),
    );
    return { result, requests: model.requests };
  } finally {
    await model.close();
  }
}

describe("options.limits", () => {
  const base = { model: ai.openai("gpt-test") };
  it.each([
    ["limits.toolCallsPerAnswer", { toolCallsPerAnswer: 0 }],
    ["limits.toolInputBytes", { toolInputBytes: 1.5 }],
    ["limits.toolOutputBytes", { toolOutputBytes: 10 }],
    ["limits.maxTools", { maxTools: 3 }],
    ["limits.toolOutputBytes", { toolInputBytes: 1024 * 1024, toolOutputBytes: 1024 * 1024 }],
  ])("a bad value throws AgentOptionsError naming %s", (field, limits) => {
    let error: unknown;
    try {
      ai.agent({ ...base, limits: limits as AgentLimits });
    } catch (caught) {
      error = caught;
    }
    expect(AgentOptionsError.isInstance(error)).toBe(true);
    expect((error as AgentOptionsError).field).toBe(field);
  });

  it("defaults to 32 tool calls per answer, 256 KiB of input and 1 MiB of output per call; any of them can be set", () => {
    expect(DEFAULT_LIMITS).toEqual({ toolCallsPerAnswer: 32, toolInputBytes: 262144, toolOutputBytes: 1048576 });
    expect(limitsOf({})).toEqual(DEFAULT_LIMITS);
    expect(limitsOf({ limits: { toolCallsPerAnswer: 4, toolOutputBytes: undefined } })).toEqual({
      ...DEFAULT_LIMITS,
      toolCallsPerAnswer: 4,
    });
  });
});

/** A completion as the `openai` client's stream assembles it. */
function completion(
  message:
    { content?: string | null; tool_calls?: Array<{ id?: string; name: string; arguments: string }> } | undefined,
): ChatCompletion {
  return {
    id: "c",
    object: "chat.completion",
    created: 0,
    model: "m",
    choices: message
      ? [
          {
            index: 0,
            finish_reason: message.tool_calls ? "tool_calls" : "stop",
            logprobs: null,
            message: {
              role: "assistant",
              refusal: null,
              content: message.content ?? null,
              ...(message.tool_calls
                ? {
                    tool_calls: message.tool_calls.map((c) => ({
                      id: c.id ?? "",
                      type: "function" as const,
                      function: { name: c.name, arguments: c.arguments },
                    })),
                  }
                : {}),
            },
          },
        ]
      : [],
  } as ChatCompletion;
}

describe("validateAnswer (the model call's checks on an answer, pure)", () => {
  const options = { modelId: "m", limits: { ...DEFAULT_LIMITS, toolCallsPerAnswer: 3, toolInputBytes: 100 } };

  it("passes a good answer through unchanged", () => {
    const check = validateAnswer(
      completion({ content: "Hi", tool_calls: [{ id: "a", name: "t", arguments: '{"x":1}' }] }),
      options,
    );
    expect(check).toEqual({
      ok: true,
      adjustments: [],
      message: { role: "assistant", content: "Hi", toolCalls: [{ id: "a", name: "t", arguments: '{"x":1}' }] },
    });
  });

  it("no choices is a ModelApiError", () => {
    const check = validateAnswer(completion(undefined), options);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.error).toBeInstanceOf(ModelApiError);
    expect(!check.ok && check.error.message).toBe('Model "m" returned no choices.');
  });

  it("more tool calls than limits.toolCallsPerAnswer is a TooManyToolCallsError, and no call is kept", () => {
    const calls = Array.from({ length: 4 }, (_, i) => ({ id: `c${i}`, name: "t", arguments: "{}" }));
    const check = validateAnswer(completion({ tool_calls: calls }), options);
    expect(!check.ok && check.error).toBeInstanceOf(TooManyToolCallsError);
    expect(!check.ok && check.error).toMatchObject({ count: 4, limit: 3, modelId: "m" });
  });

  it("arguments over limits.toolInputBytes are replaced by a marker that tool.execute refuses", () => {
    const args = JSON.stringify({ x: "é".repeat(100) }); // 208 bytes as UTF-8
    const check = validateAnswer(
      completion({
        tool_calls: [
          { id: "a", name: "t", arguments: args },
          { id: "b", name: "t", arguments: '{"x":"short"}' },
        ],
      }),
      options,
    );
    expect(check.ok && check.message.toolCalls).toEqual([
      { id: "a", name: "t", arguments: omittedArguments(208, 100) },
      { id: "b", name: "t", arguments: '{"x":"short"}' },
    ]);
    expect(check.ok && check.adjustments).toEqual([
      "tool call #1 (t): 208 bytes of arguments omitted, over limits.toolInputBytes (100)",
    ]);
  });

  it("missing and repeated tool call ids are made unique, so each call keeps its own idempotency key", () => {
    const check = validateAnswer(
      completion({
        tool_calls: [
          { id: "a", name: "t", arguments: "{}" },
          { id: "a", name: "t", arguments: "{}" },
          { name: "t", arguments: "{}" },
        ],
      }),
      options,
    );
    expect(check.ok && check.message.toolCalls!.map((c) => c.id)).toEqual(["a", "a_2", "call_3"]);
  });

  it("a tool name over 64 characters is cut and marked, so it matches no tool", () => {
    const check = validateAnswer(
      completion({ tool_calls: [{ id: "a", name: "n".repeat(10_000), arguments: "{}" }] }),
      options,
    );
    expect(check.ok && check.message.toolCalls![0]!.name).toBe(`${"n".repeat(64)}…`);
  });

  it("an answer whose text is over Temporal's payload limit is a PayloadTooLargeError, not a rejected activity result", () => {
    const check = validateAnswer(completion({ content: "x".repeat(3 * 1024 * 1024) }), options);
    expect(!check.ok && check.error).toBeInstanceOf(PayloadTooLargeError);
  });
});

describe("truncateOutput", () => {
  it("cuts on a character boundary and stays within the limit, marker included", () => {
    const json = JSON.stringify({ text: "日本語".repeat(1000) });
    const cut = truncateOutput("t", json, 500);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(500);
    expect(cut).not.toContain("\uFFFD");
    expect(cut).toMatch(
      /^\{"text":"[日本語]+ …\[truncated by durable-agent: the output of tool "t" was 9011 bytes, over limits\.toolOutputBytes \(500\)\]$/,
    );
  });
});

describe("tool input size on a real worker", () => {
  const executed: unknown[] = [];
  const note = ai.tool({
    name: "note",
    input: z.object({ text: z.string() }),
    execute: async (input) => {
      executed.push(input);
      return { ok: true };
    },
  });

  it("arguments over limits.toolInputBytes are refused without executing, and the model is told the limit", async () => {
    executed.length = 0;
    const { result, requests } = await runScript(
      [{ toolCalls: [{ name: "note", arguments: { text: "x".repeat(3000) } }] }, "Too long, sorry."],
      [note],
      { toolInputBytes: 1000 },
    );
    expect(executed).toEqual([]);
    expect(result.stopReason).toBe("answered");
    expect(result.toolCalls[0]).toMatchObject({ status: "refused", input: "[3011 bytes omitted]" }); // {"text":"x…x"}
    expect(result.toolCalls[0]!.reason).toBe(
      'Arguments for "note" are 3011 bytes, over the limit of 1000 bytes (limits.toolInputBytes); the call was not executed. Send smaller arguments.',
    );
    expect(JSON.parse(requests[1]!.body.messages.at(-1)!.content as string)).toEqual({
      refused: true,
      reason: result.toolCalls[0]!.reason,
    });
  });

  it("a call whose arguments the model call omitted (the marker) is refused with the original size", async () => {
    const { result } = await runScript(
      [{ toolCalls: [{ name: "note", arguments: omittedArguments(5_242_880, 262_144) }] }, "OK."],
      [note],
    );
    expect(result.toolCalls[0]!.reason).toMatch(
      /^Arguments for "note" are 5242880 bytes, over the limit of 262144 bytes/,
    );
  });
});

describe("tool calls per answer on a real worker", () => {
  const calls = (n: number) => Array.from({ length: n }, (_, i) => ({ name: "count", arguments: { i } }));
  const executed: number[] = [];
  const count = ai.tool({
    name: "count",
    input: z.object({ i: z.number() }),
    execute: async ({ i }) => {
      executed.push(i);
      return { ok: true };
    },
  });

  it("up to limits.toolCallsPerAnswer calls in one answer all run", async () => {
    executed.length = 0;
    const { result } = await runScript([{ toolCalls: calls(2) }, "Counted."], [count], { toolCallsPerAnswer: 2 });
    expect(result.toolCalls.map((c) => c.status)).toEqual(["ok", "ok"]);
    expect(executed.sort()).toEqual([0, 1]);
  });

  it("one more than limits.toolCallsPerAnswer fails the run with TooManyToolCallsError, and executes none", async () => {
    executed.length = 0;
    const error = await runScript([{ toolCalls: calls(3) }, "Counted."], [count], { toolCallsPerAnswer: 2 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TooManyToolCallsError);
    expect(error).toMatchObject({ count: 3, limit: 2, modelId: "gpt-test" });
    expect(executed).toEqual([]);
  });
});

describe("tool output size on a real worker", () => {
  it("output over limits.toolOutputBytes is truncated with a visible marker, recorded as ok, and the model sees the marker", async () => {
    const big = ai.tool({
      name: "report",
      input: z.object({}),
      execute: async () => ({ rows: Array.from({ length: 500 }, (_, i) => `row ${i}`) }),
    });
    const { result, requests } = await runScript(
      [{ toolCalls: [{ name: "report", arguments: {} }] }, "Here is the start of it."],
      [big],
      { toolOutputBytes: 1000 },
    );
    const output = result.toolCalls[0]!.output as string;
    expect(result.toolCalls[0]!.status).toBe("ok");
    expect(Buffer.byteLength(output)).toBeLessThanOrEqual(1000);
    expect(output).toMatch(
      /^\{"rows":\["row 0","row 1",.* …\[truncated by durable-agent: the output of tool "report" was \d+ bytes, over limits\.toolOutputBytes \(1000\)\]$/,
    );
    expect(requests[1]!.body.messages.at(-1)!.content).toContain("[truncated by durable-agent");
    expect(result.stopReason).toBe("answered");
  });

  it("a refusal in an oversized output is still seen, and a huge error message is truncated too", async () => {
    const refuses = ai.tool({
      name: "refuses",
      input: z.object({}),
      execute: async () => ({ ok: false, reason: "locked", dump: "d".repeat(5000) }),
    });
    const throws = ai.tool({
      name: "throws",
      input: z.object({}),
      execute: async () => {
        throw new Error("e".repeat(5000));
      },
    });
    const { result } = await runScript(
      [
        {
          toolCalls: [
            { name: "refuses", arguments: {} },
            { name: "throws", arguments: {} },
          ],
        },
        "Both failed.",
      ],
      [refuses, throws],
      { toolOutputBytes: 1000 },
    );
    expect(result.toolCalls.map((c) => [c.name, c.status, c.reason])).toEqual([
      ["refuses", "refused", "locked"],
      ["throws", "failed", undefined],
    ]);
    expect(Buffer.byteLength(result.toolCalls[1]!.error!)).toBeLessThanOrEqual(1000);
    expect(result.toolCalls[1]!.error).toContain("[truncated by durable-agent");
  });
});
