/**
 * Issue 13, item 1: token usage. Each model call records the usage its answer reports (asked for
 * with `stream_options.include_usage`); the run's total is in the result, the trace, the stream,
 * the current details and the DurableAgentTokens search attribute (with DurableAgentCostUsd when
 * the model has pricing, and DurableAgentBackstopRan once a backstop runs); attempts that failed after
 * usage was reported are counted in `failedAttempts`; sessions have it per message and in total.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ai, TooManyToolCallsError, type StreamedRunEvent } from "../src/index.js";
import { SEARCH_ATTRIBUTES } from "../src/core/search-attributes.js";
import { startScriptedModel, type ScriptedUsage } from "../src/testing/index.js";
import { updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { deferred } from "./support/ops-helpers.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const usage = (prompt: number, completion: number, extra: Partial<ScriptedUsage> = {}): ScriptedUsage => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  ...extra,
});

/** An SSE body: text deltas, then (optionally) a usage chunk, each a `data:` line. */
function sse(text: string, reported?: ScriptedUsage, { done = true }: { done?: boolean } = {}): string {
  const ids = { id: "chatcmpl-raw", created: 1, model: "gpt-test", object: "chat.completion.chunk" };
  const lines = [
    { ...ids, choices: [{ index: 0, delta: { role: "assistant", content: text }, finish_reason: null }] },
    { ...ids, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    ...(reported
      ? [
          {
            ...ids,
            choices: [],
            usage: { ...reported, total_tokens: reported.prompt_tokens + reported.completion_tokens },
          },
        ]
      : []),
  ].map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`);
  return lines.join("") + (done ? "data: [DONE]\n\n" : "");
}

/**
 * A model that calls update_plan (120 tokens), then holds its second answer ("Done.", 135 tokens)
 * until `release()`: `secondRequested` resolves once the run is between its model calls.
 */
async function heldSecondAnswer() {
  const held = deferred();
  const reached = deferred();
  const model = await startScriptedModel(async ({ index }) => {
    if (index === 0)
      return {
        toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }],
        usage: usage(100, 20),
      };
    reached.resolve();
    await held.promise;
    return { text: "Done.", usage: usage(130, 5) };
  });
  return { model, secondRequested: reached.promise, release: () => held.resolve() };
}

describe("usage per model call", () => {
  it("each answer's usage is in its trace entry and in the model.answered event; result.usage is the total; the request asks for it", async () => {
    const model = await startScriptedModel([
      {
        toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }],
        usage: usage(120, 30, { prompt_tokens_details: { cached_tokens: 100 } }),
      },
      {
        text: "Done: squats are now lunges.",
        usage: usage(170, 12, { completion_tokens_details: { reasoning_tokens: 5 } }),
      },
    ]);
    const agent = ai.agent({
      name: "usage-coach",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [updatePlanTool()],
    });
    const events: StreamedRunEvent[] = [];
    const result = await withWorker(harness, [agent], async ({ taskQueue }) => {
      for await (const event of await agent.stream("Swap squats for lunges", { client: harness.client, taskQueue }))
        events.push(event);
      return (events.at(-1) as Extract<StreamedRunEvent, { type: "run.finished" }>).result;
    });
    expect(model.requests.map((r) => r.body.stream_options)).toEqual([
      { include_usage: true },
      { include_usage: true },
    ]);
    const answered = result.trace.filter((e) => e.type === "model.answered");
    expect(answered.map((e) => e.usage)).toEqual([
      { inputTokens: 120, outputTokens: 30, totalTokens: 150, cachedInputTokens: 100 },
      { inputTokens: 170, outputTokens: 12, totalTokens: 182, reasoningTokens: 5 },
    ]);
    expect(result.usage).toEqual({
      inputTokens: 290,
      outputTokens: 42,
      totalTokens: 332,
      cachedInputTokens: 100,
      reasoningTokens: 5,
      modelCalls: 2,
    });
    expect(
      events.filter((e) => e.type === "model.answered").map((e) => e.type === "model.answered" && e.usage?.totalTokens),
    ).toEqual([150, 182]);
    await model.close();
  });

  it("a server that reports no usage gives undefined, not zeros", async () => {
    const model = await startScriptedModel(["Hello."]);
    const agent = ai.agent({ name: "usage-none", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("Hi", { client: harness.client, taskQueue }),
    );
    expect(result.usage).toBeUndefined();
    expect(result.trace[0]).toEqual({
      trip: 1,
      type: "model.answered",
      text: "Hello.",
      toolCalls: [],
      agentVersion: agent.version,
    });
    await model.close();
  });

  it("the current details and the DurableAgentTokens search attribute show the total so far", async () => {
    const { model, secondRequested, release } = await heldSecondAnswer();
    const agent = ai.agent({
      name: "usage-watched",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [updatePlanTool()],
    });
    const { details, during, after } = await withWorker(
      harness,
      [agent],
      async ({ taskQueue }) => {
        const handle = await agent.start("Swap squats for lunges", { client: harness.client, taskQueue });
        await secondRequested;
        const metadata = await handle.workflow.query<{ currentDetails?: string }>("__temporal_workflow_metadata");
        const tokensDuring = (await handle.workflow.describe()).typedSearchAttributes.get(SEARCH_ATTRIBUTES.tokens);
        release();
        await handle.result();
        return {
          details: metadata.currentDetails,
          during: tokensDuring,
          after: (await handle.workflow.describe()).typedSearchAttributes.get(SEARCH_ATTRIBUTES.tokens),
        };
      },
      { searchAttributes: true },
    );
    expect(details).toContain("tokens used: 120 (100 in, 20 out)");
    expect(during).toBe(120);
    expect(after).toBe(255);
    await model.close();
  });
});

describe("the cost and backstop search attributes", () => {
  it("DurableAgentCostUsd follows the priced run's cost after each model call; DurableAgentBackstopRan is set once a backstop runs", async () => {
    const { model, secondRequested, release } = await heldSecondAnswer();
    const priced = ai.agent({
      name: "usage-priced",
      model: ai.openai("gpt-test", { baseURL: model.baseURL, pricing: { inputPerMillion: 2, outputPerMillion: 8 } }),
      tools: [updatePlanTool()],
      backstops: [{ name: "audit", detect: (t) => t.reply === "Done.", run: () => undefined }],
    });
    const plain = ai.agent({ name: "usage-unpriced", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const { during, after, result, unpriced } = await withWorker(
      harness,
      [priced, plain],
      async ({ taskQueue }) => {
        const handle = await priced.start("Swap squats for lunges", { client: harness.client, taskQueue });
        await secondRequested;
        const during = (await handle.workflow.describe()).typedSearchAttributes;
        release();
        const result = await handle.result();
        const after = (await handle.workflow.describe()).typedSearchAttributes;
        const other = await plain.start("Hi", { client: harness.client, taskQueue });
        await other.result();
        return { during, after, result, unpriced: (await other.workflow.describe()).typedSearchAttributes };
      },
      { searchAttributes: true },
    );
    // 100 in and 20 out at $2 and $8 per million; then 130 in and 5 out.
    expect(during.get(SEARCH_ATTRIBUTES.costUsd)).toBe(0.00036);
    expect(during.get(SEARCH_ATTRIBUTES.backstopRan)).toBeUndefined();
    expect(result.trace.filter((e) => e.type === "backstop").map((e) => e.type === "backstop" && e.outcome)).toEqual([
      "detected",
      "ran",
    ]);
    expect(result.usage?.costUsd).toBe(0.00066);
    expect(after.get(SEARCH_ATTRIBUTES.costUsd)).toBe(result.usage?.costUsd);
    expect(after.get(SEARCH_ATTRIBUTES.tokens)).toBe(255);
    expect(after.get(SEARCH_ATTRIBUTES.backstopRan)).toBe(true);
    // Without pricing or a backstop, neither is set (a run that reports no usage has no cost).
    expect(unpriced.get(SEARCH_ATTRIBUTES.agent)).toBe("usage-unpriced");
    expect(unpriced.get(SEARCH_ATTRIBUTES.costUsd)).toBeUndefined();
    expect(unpriced.get(SEARCH_ATTRIBUTES.backstopRan)).toBeUndefined();
    await model.close();
  });
});

describe("usage of failed attempts", () => {
  it("a stream cut off after its usage chunk is retried; the tokens it reported are counted in failedAttempts and the total", async () => {
    const model = await startScriptedModel(({ index }) =>
      index === 0
        ? { raw: sse("Half an ans", usage(90, 7), { done: false }), hangUp: true }
        : { text: "A whole answer.", usage: usage(90, 11) },
    );
    const agent = ai.agent({ name: "usage-cut", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("Hi", { client: harness.client, taskQueue }),
    );
    expect(model.requests).toHaveLength(2);
    expect(result.reply).toBe("A whole answer.");
    expect(result.trace.find((e) => e.type === "model.answered")).toMatchObject({
      usage: { inputTokens: 90, outputTokens: 11, totalTokens: 101 },
    });
    expect(result.usage).toEqual({
      inputTokens: 180,
      outputTokens: 18,
      totalTokens: 198,
      modelCalls: 2,
      failedAttempts: { inputTokens: 90, outputTokens: 7, totalTokens: 97, attempts: 1 },
    });
    await model.close();
  });

  it("an answer rejected by the worker's checks (too many tool calls) fails the run; the error carries the usage, failed attempt included", async () => {
    const model = await startScriptedModel([
      {
        toolCalls: ["a", "b"].map((to) => ({ name: "update_plan", arguments: { from: "squats", to } })),
        usage: usage(50, 40),
      },
    ]);
    const agent = ai.agent({
      name: "usage-rejected",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [updatePlanTool()],
      limits: { toolCallsPerAnswer: 1 },
    });
    const error = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("Swap", { client: harness.client, taskQueue }).catch((e: unknown) => e),
    );
    expect(TooManyToolCallsError.isInstance(error)).toBe(true);
    expect((error as TooManyToolCallsError).usage).toEqual({
      inputTokens: 50,
      outputTokens: 40,
      totalTokens: 90,
      modelCalls: 1,
      failedAttempts: { inputTokens: 50, outputTokens: 40, totalTokens: 90, attempts: 1 },
    });
    await model.close();
  });
});

describe("usage in sessions", () => {
  it("each message's result has its own usage; the session's summary has the total", async () => {
    const model = await startScriptedModel([
      { text: "One.", usage: usage(10, 1) },
      { text: "Two.", usage: usage(20, 2) },
    ]);
    const agent = ai.agent({ name: "usage-session", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const { first, second, summary } = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const session = agent.session(`s-${Date.now()}`, { client: harness.client, taskQueue });
      const first = await session.send("first");
      const second = await session.send("second");
      await session.end();
      return { first, second, summary: await harness.client.workflow.getHandle(session.workflowId).result() };
    });
    expect(first.usage).toEqual({ inputTokens: 10, outputTokens: 1, totalTokens: 11, modelCalls: 1 });
    expect(second.usage).toEqual({ inputTokens: 20, outputTokens: 2, totalTokens: 22, modelCalls: 1 });
    expect(summary).toMatchObject({ usage: { inputTokens: 30, outputTokens: 3, totalTokens: 33, modelCalls: 2 } });
    await model.close();
  });
});

describe("usage in evals", () => {
  it("scorers see each run's usage; the report has it per run, per case and in total", async () => {
    const model = await startScriptedModel(({ body }) => ({
      text: "Fine.",
      usage: usage(String(body.messages.at(-1)?.content) === "long" ? 200 : 100, 10),
    }));
    const agent = ai.agent({ name: "usage-eval", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const seen: number[] = [];
    const report = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.eval({
        cases: [
          { name: "short", input: "short" },
          { name: "long", input: "long" },
        ],
        scorers: [
          {
            name: "spends",
            score: (record) => (seen.push(record.usage!.totalTokens), { pass: record.usage!.totalTokens < 150 }),
          },
        ],
        trials: 2,
        client: harness.client,
        taskQueue,
      }),
    );
    expect(seen.sort()).toEqual([110, 110, 210, 210]);
    expect(report.runs.map((run) => run.usage?.totalTokens)).toEqual([110, 110, 210, 210]);
    expect(report.cases.map((c) => [c.case, c.usage])).toEqual([
      ["short", { inputTokens: 200, outputTokens: 20, totalTokens: 220, modelCalls: 2 }],
      ["long", { inputTokens: 400, outputTokens: 20, totalTokens: 420, modelCalls: 2 }],
    ]);
    expect(report.totals.usage).toEqual({ inputTokens: 600, outputTokens: 40, totalTokens: 640, modelCalls: 4 });
    await model.close();
  });
});
