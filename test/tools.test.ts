import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, RetryableToolError, type Tool } from "../src/index.js";
import { startScriptedModel, type ScriptedTurn } from "../src/testing/index.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

/** Runs one agent against a script and returns the result and the model's requests. */
async function runScript(script: ScriptedTurn[], tools: Tool[], input = "Swap squats for lunges", maxTrips?: number) {
  const model = await startScriptedModel(script);
  try {
    const agent = ai.agent({
      name: "tools-agent",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools,
      maxTrips,
    });
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run(input, { client: harness.client, taskQueue }),
    );
    return { result, requests: model.requests };
  } finally {
    await model.close();
  }
}

const executed: unknown[] = [];
const updatePlan = ai.tool({
  name: "update_plan",
  input: z.object({ from: z.string(), to: z.string() }),
  execute: async (input) => {
    executed.push(input);
    return { ok: true };
  },
});

describe("tool input", () => {
  it("is validated with the zod schema before execute; a failure is refused, not executed, and its message goes back to the model", async () => {
    executed.length = 0;
    const { result, requests } = await runScript(
      [{ toolCalls: [{ name: "update_plan", arguments: { from: "squats" } }] }, "Sorry."],
      [updatePlan],
    );
    expect(executed).toEqual([]);
    expect(result.toolCalls[0]).toMatchObject({ name: "update_plan", status: "refused", input: { from: "squats" } });
    expect(result.toolCalls[0]!.reason).toMatch(/Invalid input for "update_plan".*to/);
    const toolMessage = requests[1]!.body.messages.at(-1)!;
    expect(toolMessage.role).toBe("tool");
    expect(JSON.parse(String(toolMessage.content))).toEqual({ refused: true, reason: result.toolCalls[0]!.reason });
    expect(result.stopReason).toBe("answered");
  });

  it("an unknown tool name is refused, naming the tools the agent has", async () => {
    const { result } = await runScript(
      [{ toolCalls: [{ name: "delete_plan", arguments: {} }] }, "Sorry."],
      [updatePlan],
    );
    expect(result.toolCalls[0]).toMatchObject({
      name: "delete_plan",
      status: "refused",
      reason: 'Unknown tool "delete_plan". Available tools: update_plan.',
    });
  });

  it("malformed JSON arguments are refused with a clear reason", async () => {
    executed.length = 0;
    const { result } = await runScript(
      [{ toolCalls: [{ name: "update_plan", arguments: '{"from": "squats", ' }] }, "Sorry."],
      [updatePlan],
    );
    expect(executed).toEqual([]);
    expect(result.toolCalls[0]).toMatchObject({ status: "refused", input: '{"from": "squats", ' });
    expect(result.toolCalls[0]!.reason).toMatch(/^Arguments for "update_plan" are not valid JSON/);
  });
});

describe("tool execution", () => {
  it("runs parallel tool calls of one answer in parallel, and records each with its trip", async () => {
    let inFlight = 0;
    let peak = 0;
    let release!: () => void;
    const bothStarted = new Promise<void>((resolve) => (release = resolve));
    const slow = ai.tool({
      name: "lookup",
      input: z.object({ id: z.number() }),
      execute: async ({ id }) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        if (inFlight === 2) release();
        await bothStarted;
        inFlight -= 1;
        return { id };
      },
    });
    const { result } = await runScript(
      [
        {
          toolCalls: [
            { name: "lookup", arguments: { id: 1 } },
            { name: "lookup", arguments: { id: 2 } },
          ],
        },
        "Both found.",
      ],
      [slow],
    );
    expect(peak).toBe(2);
    expect(result.toolCalls.map((c) => [c.output, c.trip, c.status])).toEqual([
      [{ id: 1 }, 1, "ok"],
      [{ id: 2 }, 1, "ok"],
    ]);
  });

  it("a tool that throws is recorded as failed, its message goes back to the model, and the run goes on", async () => {
    const broken = ai.tool({
      name: "update_plan",
      input: z.object({}),
      execute: async () => {
        throw new Error("plan service is down");
      },
    });
    const { result, requests } = await runScript(
      [{ toolCalls: [{ name: "update_plan", arguments: {} }] }, "I could not update it."],
      [broken],
    );
    expect(result.toolCalls[0]).toMatchObject({ status: "failed", error: "plan service is down" });
    expect(JSON.parse(String(requests[1]!.body.messages.at(-1)!.content))).toEqual({ error: "plan service is down" });
    expect(result.reply).toBe("I could not update it.");
  });

  it("a RetryableToolError is retried by Temporal; other errors are not", async () => {
    const attempts: number[] = [];
    const flaky = ai.tool({
      name: "update_plan",
      input: z.object({}),
      execute: async (_input, ctx) => {
        attempts.push(ctx.attempt);
        if (ctx.attempt === 1) throw new RetryableToolError("temporarily locked");
        return { ok: true, idempotencyKey: ctx.idempotencyKey };
      },
    });
    const { result } = await runScript(
      [{ toolCalls: [{ name: "update_plan", arguments: {}, id: "call_a" }] }, "Done."],
      [flaky],
    );
    expect(attempts).toEqual([1, 2]);
    expect(result.toolCalls[0]).toMatchObject({
      status: "ok",
      output: { ok: true, idempotencyKey: `${result.workflowId}/trip-1/call_a` },
    });
  });

  it("a RetryableToolError that keeps failing is recorded as failed once retries run out", async () => {
    const attempts: number[] = [];
    const locked = ai.tool({
      name: "update_plan",
      input: z.object({}),
      execute: async (_i, ctx) => {
        attempts.push(ctx.attempt);
        throw new RetryableToolError("still locked");
      },
    });
    const { result } = await runScript(
      [{ toolCalls: [{ name: "update_plan", arguments: {} }] }, "It is locked."],
      [locked],
    );
    expect(attempts).toEqual([1, 2, 3]);
    expect(result.toolCalls[0]).toMatchObject({ status: "failed", error: "still locked" });
  }, 30_000);

  it("a result that cannot be serialised fails the call with a ToolOutputError message", async () => {
    const cyclic = ai.tool({
      name: "update_plan",
      input: z.object({}),
      execute: async () => {
        const a: Record<string, unknown> = {};
        a.self = a;
        return a;
      },
    });
    const { result } = await runScript([{ toolCalls: [{ name: "update_plan", arguments: {} }] }, "Hm."], [cyclic]);
    expect(result.toolCalls[0]!.status).toBe("failed");
    expect(result.toolCalls[0]!.error).toMatch(
      /^Tool "update_plan" returned a value that cannot be serialised to JSON/,
    );
  });

  it("a result over Temporal's payload limit is truncated to limits.toolOutputBytes with a visible marker, and the run goes on", async () => {
    const huge = ai.tool({
      name: "update_plan",
      input: z.object({}),
      execute: async () => ({ blob: "x".repeat(3 * 1024 * 1024) }),
    });
    const { result } = await runScript([{ toolCalls: [{ name: "update_plan", arguments: {} }] }, "Too big."], [huge]);
    expect(result.stopReason).toBe("answered");
    expect(result.toolCalls[0]!.status).toBe("ok");
    expect(result.toolCalls[0]!.output).toMatch(
      /^\{"blob":"x+ …\[truncated by durable-agent: the output of tool "update_plan" was \d+ bytes, over limits\.toolOutputBytes \(1048576\)\]$/,
    );
  });

  it("an object with refused: true or ok: false and a reason is recorded as refused with that reason", async () => {
    const picky = ai.tool({
      name: "update_plan",
      input: z.object({ to: z.string() }),
      execute: async ({ to }) =>
        to === "x" ? { refused: true, reason: "x is not in the library" } : { ok: false, error: `${to} is locked` },
    });
    const { result } = await runScript(
      [
        {
          toolCalls: [
            { name: "update_plan", arguments: { to: "x" } },
            { name: "update_plan", arguments: { to: "y" } },
          ],
        },
        "Neither worked.",
      ],
      [picky],
    );
    expect(result.toolCalls.map((c) => [c.status, c.reason])).toEqual([
      ["refused", "x is not in the library"],
      ["refused", "y is locked"],
    ]);
  });
});

describe("maxTrips", () => {
  it("ends the run with stopReason max-trips, a result and not an exception, and the trace says so", async () => {
    const loop = { toolCalls: [{ name: "update_plan", arguments: { from: "a", to: "b" } }] };
    const { result, requests } = await runScript([loop, loop, loop, loop], [updatePlan], "Swap", 3);
    expect(requests).toHaveLength(3);
    expect(result.stopReason).toBe("max-trips");
    expect(result.trips).toBe(3);
    expect(result.trace.at(-1)).toEqual({
      trip: 3,
      type: "run.stopped",
      stopReason: "max-trips",
      detail: "maxTrips (3) used up",
    });
  });
});

describe("tool calls in the history", () => {
  /** The decoded inputs and results of a run's activities (and local activities) of `type`. */
  async function activityPayloads(workflowId: string, type: string) {
    const { events } = await harness.client.workflow.getHandle(workflowId).fetchHistory();
    const decode = (payload: { data?: Uint8Array | null } | undefined) =>
      JSON.parse(Buffer.from(payload!.data!).toString("utf8")) as Record<string, unknown>;
    const inputs: Record<string, unknown>[] = [];
    const results: Record<string, unknown>[] = [];
    const scheduled = new Map<string, string>();
    for (const event of events ?? []) {
      const s = event.activityTaskScheduledEventAttributes;
      if (s) scheduled.set(String(event.eventId), s.activityType!.name!);
      if (s?.activityType?.name === type) inputs.push(decode(s.input!.payloads![0]));
      const c = event.activityTaskCompletedEventAttributes;
      if (c && scheduled.get(String(c.scheduledEventId)) === type) results.push(decode(c.result!.payloads![0]));
      const m = event.markerRecordedEventAttributes;
      if (m && decode(m.details!.data!.payloads![0]).activity_type === type)
        results.push(decode(m.details!.result!.payloads![0]));
    }
    return { inputs, results };
  }

  const slowSwap = ai.tool({
    name: "update_plan",
    input: z.object({ from: z.string(), to: z.string() }),
    execute: async () => ({ ok: true }),
  });
  const localSwap = ai.tool({
    name: "update_plan",
    input: z.object({ from: z.string(), to: z.string() }),
    execution: "local",
    execute: async () => ({ ok: true }),
  });

  for (const [label, tool] of [
    ["an activity", slowSwap],
    ["a local activity", localSwap],
  ] as const) {
    it(`a result of ${label} does not repeat the call's id, name, trip or parsed input; the run's record has them all`, async () => {
      const script: ScriptedTurn[] = [
        {
          toolCalls: [
            { name: "update_plan", arguments: { from: "squats", to: "lunges" } },
            { name: "update_plan", arguments: { from: "squats" } },
            { name: "nope", arguments: { a: 1 } },
          ],
        },
        "Done.",
      ];
      const { result } = await runScript(script, [tool]);
      expect(result.toolCalls).toEqual([
        {
          id: "call_0_0",
          name: "update_plan",
          trip: 1,
          input: { from: "squats", to: "lunges" },
          output: { ok: true },
          status: "ok",
        },
        {
          id: "call_0_1",
          name: "update_plan",
          trip: 1,
          input: { from: "squats" },
          status: "refused",
          reason: expect.stringMatching(/^Invalid input/),
        },
        {
          id: "call_0_2",
          name: "nope",
          trip: 1,
          input: '{"a":1}',
          status: "refused",
          reason: 'Unknown tool "nope". Available tools: update_plan.',
        },
      ]);
      const { inputs, results } = await activityPayloads(result.workflowId, "tool.execute");
      expect(results).toHaveLength(3); // in the order they finished
      expect(results).toEqual(
        expect.arrayContaining([
          { kind: "result", output: { ok: true }, status: "ok" },
          { kind: "result", status: "refused", reason: result.toolCalls[1]!.reason },
          { kind: "result", input: '{"a":1}', status: "refused", reason: result.toolCalls[2]!.reason }, // not the arguments parsed: kept
        ]),
      );
      for (const input of inputs) expect(Object.keys(input).sort()).toEqual(["agent", "call", "trip"]);
    });
  }

  it("a model call's input leaves out what is off (no streamText: false)", async () => {
    const { result } = await runScript(
      [{ toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] }, "Done."],
      [updatePlan],
    );
    const { inputs } = await activityPayloads(result.workflowId, "model.call");
    expect(inputs).toHaveLength(2);
    for (const input of inputs) expect(input).not.toHaveProperty("streamText");
  });
});
