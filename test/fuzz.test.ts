/**
 * Issue 9, item 3: a model that misbehaves. Many runs at once against one worker, each given a
 * hostile answer from a seeded list; every run ends with a clear stop reason or a typed error,
 * the worker stays up, and well-behaved runs alongside them complete exactly as they should.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, DurableAgentError, type RunResult } from "../src/index.js";
import {
  startScriptedModel,
  type ScriptedModel,
  type ScriptedRequest,
  type ScriptedTurn,
} from "../src/testing/index.js";
import { fuzzCases, type FuzzCase } from "./support/fuzz-cases.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { hostileToolset } from "./support/mcp-helpers.js";

const SEED = 20261130;
const PER_KIND = 3;
/** Errors a hostile answer may end a run with: typed, named, and saying what went wrong. */
const TYPED_ERRORS = new Set(["ModelApiError", "TooManyToolCallsError", "PayloadTooLargeError"]);

const cases = fuzzCases(SEED, PER_KIND);

let harness: Harness;
let model: ScriptedModel;
const executed = new Map<string, number>();
const attempts = new Map<string, number>();

/** Answers by the case named in the user message: the hostile answer on trip 1, a plain one after; good runs call the tool, then answer. */
function answer(request: ScriptedRequest): ScriptedTurn {
  const user = String(request.body.messages.find((m) => m.role === "user")?.content ?? "");
  const trip = request.body.messages.filter((m) => m.role === "assistant").length + 1;
  const good = /^good run (\d+)/.exec(user);
  if (good)
    return trip === 1
      ? { toolCalls: [{ name: "update_plan", arguments: { from: `squats-${good[1]}`, to: `lunges-${good[1]}` } }] }
      : `Good run ${good[1]}: swapped.`;
  const id = Number(/^case (\d+)/.exec(user)?.[1]);
  const fuzzCase = cases.find((c) => c.id === id)!;
  const key = `${id}/${trip}`;
  const attempt = (attempts.get(key) ?? 0) + 1;
  attempts.set(key, attempt);
  return trip === 1 ? fuzzCase.answer(attempt) : "Recovered.";
}

const updatePlan = ai.tool({
  name: "update_plan",
  input: z.object({ from: z.string(), to: z.string() }),
  execute: async ({ from, to }, ctx) => {
    executed.set(ctx.workflowId, (executed.get(ctx.workflowId) ?? 0) + 1);
    return { ok: true, plan: [to], replaced: from };
  },
});

beforeAll(async () => {
  harness = await connectHarness();
  model = await startScriptedModel(answer);
});
afterAll(async () => {
  await model.close();
  await harness.close();
});

type Outcome = { result: RunResult } | { error: unknown };

function checkOutcome(fuzzCase: FuzzCase, outcome: Outcome): void {
  const label = `case ${fuzzCase.id} (${fuzzCase.kind})`;
  const { expected } = fuzzCase;
  if ("error" in outcome) {
    const error = outcome.error as Error;
    expect(DurableAgentError.isInstance(error), `${label}: an untyped error ${String(error)}`).toBe(true);
    expect(TYPED_ERRORS.has(error.name), `${label}: ${error.name}`).toBe(true);
    expect("error" in expected && error.name, `${label}: ${error.message}`).toBe(
      "error" in expected ? expected.error : "a stop reason",
    );
    if ("error" in expected) expect(error.message, label).toMatch(expected.message);
    return;
  }
  const { result } = outcome;
  expect(["answered", "max-trips"], label).toContain(result.stopReason);
  expect("stopReason" in expected, `${label}: ended ${result.stopReason}, expected ${JSON.stringify(expected)}`).toBe(
    true,
  );
  if (!("stopReason" in expected)) return;
  expect(result.stopReason, label).toBe(expected.stopReason);
  if (expected.toolStatus)
    expect(
      result.toolCalls.map((c) => c.status),
      label,
    ).toEqual(Array(expected.toolCalls ?? 1).fill(expected.toolStatus));
  if (expected.reason) expect(result.toolCalls[0]!.reason, label).toMatch(expected.reason);
  if (expected.toolStatus === "refused")
    expect(executed.get(result.workflowId), `${label}: a refused call was executed`).toBeUndefined();
  if (expected.reply) expect(result.reply, label).toMatch(expected.reply);
  if (expected.attempts) expect(attempts.get(`${fuzzCase.id}/1`), label).toBe(expected.attempts);
  // Nothing hostile is kept whole in the run: the recorded conversation stays small.
  expect(Buffer.byteLength(JSON.stringify(result.messages)), label).toBeLessThan(512 * 1024);
}

describe("a model that misbehaves (seeded fuzz)", () => {
  it("the case list is the same on every run (every variant is drawn from the seed up front)", () => {
    const summary = (list: FuzzCase[]) =>
      list.map(
        (c) =>
          `${c.id} ${c.kind} ${String((c.expected as { message?: RegExp }).message ?? "")} ${JSON.stringify(c.answer(1)).length}`,
      );
    const first = fuzzCases(SEED, PER_KIND);
    const answeredBackwards = summary([...first].reverse()).reverse(); // answering in another order draws nothing from the seed
    expect(summary(fuzzCases(SEED, PER_KIND))).toEqual(answeredBackwards);
    expect(new Set(first.map((c) => c.kind)).size).toBe(14);
  });

  it(`${cases.length} hostile runs and 4 well-behaved runs share one worker: each hostile run ends clearly, the good ones exactly as usual`, async () => {
    const hostile = ai.agent({
      name: "fuzz-hostile",
      model: ai.openai("gpt-fuzz", { baseURL: model.baseURL }),
      tools: [updatePlan],
      maxTrips: 3,
    });
    const wellBehaved = ai.agent({
      name: "fuzz-good",
      model: ai.openai("gpt-good", { baseURL: model.baseURL }),
      tools: [updatePlan],
      maxTrips: 3,
    });
    const started = Date.now();
    const { outcomes, good, after, workerState } = await withWorker(
      harness,
      [hostile, wellBehaved],
      async ({ taskQueue, worker }) => {
        const opts = { client: harness.client, taskQueue };
        const settle = (p: Promise<RunResult>): Promise<Outcome> =>
          p.then(
            (result) => ({ result }),
            (error: unknown) => ({ error }),
          );
        const goodRuns = [0, 1, 2, 3].map((n) => wellBehaved.run(`good run ${n}: swap squats for lunges`, opts));
        const outcomes = await Promise.all(
          cases.map((c) => settle(hostile.run(`case ${c.id}: swap squats for lunges`, opts))),
        );
        const good = await Promise.all(goodRuns);
        const workerState = worker.getState();
        const after = await wellBehaved.run("good run 9: after the storm", opts); // the worker still serves new runs
        return { outcomes, good, after, workerState };
      },
    );
    cases.forEach((fuzzCase, i) => checkOutcome(fuzzCase, outcomes[i]!));
    for (const [n, result] of [...good.entries(), [9, after] as const]) {
      expect(result).toMatchObject({ stopReason: "answered", reply: `Good run ${n}: swapped.`, trips: 2 });
      expect(result.toolCalls).toMatchObject([
        {
          name: "update_plan",
          status: "ok",
          input: { from: `squats-${n}`, to: `lunges-${n}` },
          output: { ok: true, plan: [`lunges-${n}`] },
        },
      ]);
      expect(executed.get(result.workflowId)).toBe(1);
    }
    expect(workerState).toBe("RUNNING");
    const byKind = new Map<string, string[]>();
    cases.forEach((c, i) => {
      const outcome = outcomes[i]!;
      byKind.set(c.kind, [
        ...(byKind.get(c.kind) ?? []),
        "error" in outcome ? (outcome.error as Error).name : outcome.result.stopReason,
      ]);
    });
    console.log(
      `fuzz seed ${SEED}: ${cases.length} hostile runs in ${Date.now() - started} ms\n${[...byKind].map(([kind, ends]) => `  ${kind}: ${ends.join(", ")}`).join("\n")}`,
    );
  }, 90_000);

  it("a hostile MCP server (huge results, malformed JSON-RPC, wrong content types, never answering, crashing): each run ends clearly, the worker stays up", async () => {
    /** What each hostile tool's call must come to; the ones that break the connection have a toolset of their own. */
    const expected: Record<string, { status: "ok" | "failed"; match: RegExp }> = {
      huge: {
        status: "ok",
        match: /truncated by durable-agent: a text part of \d+ bytes, over limits\.toolOutputBytes \(65536\)/,
      },
      huge_image: {
        status: "ok",
        match: /\[durable-agent: image image\/png, \d+ bytes omitted, over limits\.toolOutputBytes \(65536\)\]/,
      },
      result_not_object: { status: "failed", match: /^MCP server "hostile" \(.*\): no answer within 1000 ms/ }, // not a JSON-RPC response at all: the SDK drops it
      wrong_content_type: {
        status: "failed",
        match: /^MCP server "hostile" \(.*\): the server's answer does not follow the MCP schema/,
      },
      content_not_array: {
        status: "failed",
        match: /^MCP server "hostile" \(.*\): the server's answer does not follow the MCP schema/,
      },
      error_response: {
        status: "failed",
        match: /^MCP server "hostile" \(.*\): the server answered with error -32603: .*internal meltdown/,
      },
      wrong_id: { status: "failed", match: /^MCP server "hostile" \(.*\): no answer within 1000 ms/ },
      never: { status: "failed", match: /^MCP server "hostile" \(.*\): no answer within 1000 ms/ },
      breaker__malformed: { status: "failed", match: /^MCP server "breaker" \(.*\): / },
      breaker__crash: {
        status: "failed",
        match: /^MCP server "breaker" \(.*\): (the connection was lost|the request failed|could not connect)/,
      },
    };
    const hostileMcp = hostileToolset({ tools: (t) => !["crash", "malformed"].includes(t.name) });
    const breaker = hostileToolset({ name: "breaker", prefix: true, tools: ["crash", "malformed"] });
    const mcpModel = await startScriptedModel((request) => {
      const user = String(request.body.messages.find((m) => m.role === "user")?.content ?? "");
      const good = /^good run (\d+)/.exec(user);
      const toolAnswered = request.body.messages.some((m) => m.role === "tool");
      if (good)
        return toolAnswered
          ? `Good run ${good[1]}: swapped.`
          : { toolCalls: [{ name: "update_plan", arguments: { from: `squats-${good[1]}`, to: `lunges-${good[1]}` } }] };
      return toolAnswered ? "Recovered." : { toolCalls: [{ name: /^call (\w+)/.exec(user)![1]!, arguments: {} }] };
    });
    const hostile = ai.agent({
      name: "fuzz-mcp-hostile",
      model: ai.openai("gpt-fuzz", { baseURL: mcpModel.baseURL }),
      tools: [hostileMcp, breaker, updatePlan],
      maxTrips: 3,
      limits: { toolOutputBytes: 65536 },
    });
    const wellBehaved = ai.agent({
      name: "fuzz-mcp-good",
      model: ai.openai("gpt-good", { baseURL: mcpModel.baseURL }),
      tools: [updatePlan],
      maxTrips: 3,
    });
    try {
      const { outcomes, good, after, workerState } = await withWorker(
        harness,
        [hostile, wellBehaved],
        async ({ taskQueue, worker }) => {
          const opts = { client: harness.client, taskQueue };
          const goodRuns = [0, 1].map((n) => wellBehaved.run(`good run ${n}: swap squats for lunges`, opts));
          const outcomes = await Promise.all(
            Object.keys(expected).map((tool) =>
              hostile.run(`call ${tool}`, opts).then(
                (result) => ({ result }),
                (error: unknown) => ({ error }),
              ),
            ),
          );
          const good = await Promise.all(goodRuns);
          const workerState = worker.getState();
          const after = await hostile.run("call huge", opts); // the worker, and the hostile server's connection, still serve new runs
          return { outcomes, good, after, workerState };
        },
      );
      Object.entries(expected).forEach(([tool, { status, match }], i) => {
        const outcome = outcomes[i]!;
        expect("result" in outcome, `${tool}: ${"error" in outcome ? String(outcome.error) : ""}`).toBe(true);
        const { result } = outcome as { result: RunResult };
        expect(result, tool).toMatchObject({ stopReason: "answered", reply: "Recovered." });
        const [record] = result.toolCalls;
        expect(record, tool).toMatchObject({ name: tool, status });
        expect(status === "ok" ? JSON.stringify(record!.output) : record!.error, tool).toMatch(match);
        expect(Buffer.byteLength(JSON.stringify(result.toolCalls)), tool).toBeLessThan(70_000);
      });
      for (const [n, result] of good.entries())
        expect(result).toMatchObject({ stopReason: "answered", reply: `Good run ${n}: swapped.` });
      expect(workerState).toBe("RUNNING");
      expect(after.toolCalls).toMatchObject([{ name: "huge", status: "ok" }]);
    } finally {
      await hostileMcp.close();
      await breaker.close();
      await mcpModel.close();
    }
  }, 90_000);
});
