/**
 * Issue 18 on a real worker: a model stream that breaks after it started is retried by Temporal,
 * the next attempt marks the run's stream with `trip.retry`, and the run completes with the
 * second attempt's answer on one trip. What retrying cannot fix still fails the run at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ai, ModelApiError, type RunResult, type StreamedRunEvent } from "../src/index.js";
import { startScriptedModel, type ScriptedAnswer, type ScriptedTurn } from "../src/testing/index.js";
import { updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const LOST = "This first answer is lost halfway through.";
const SECOND = "The second attempt's answer, whole.";

type Delta = Extract<StreamedRunEvent, { type: "text.delta" }>;

/** Streams a run whose first model call gets `first`, and every later call `later(index)`. */
async function streamedRun(
  name: string,
  first: ScriptedAnswer,
  later: (index: number) => ScriptedTurn,
  toolCalls?: unknown[],
) {
  const model = await startScriptedModel(({ index }) => (index === 0 ? first : later(index)), { chunkSize: 8 });
  const agent = ai.agent({
    name,
    model: ai.openai("gpt-cut", { baseURL: model.baseURL }),
    ...(toolCalls ? { tools: [updatePlanTool(toolCalls)] } : {}),
  });
  try {
    return await withWorker(harness, [agent], async ({ taskQueue }) => {
      const stream = await agent.stream("Swap squats for lunges", { client: harness.client, taskQueue });
      const events: StreamedRunEvent[] = [];
      for await (const event of stream) events.push(event);
      const finished = events.at(-1) as Extract<StreamedRunEvent, { type: "run.finished" }>;
      const history = await harness.client.workflow.getHandle(finished.result.workflowId).fetchHistory();
      const modelCalls = history.events!.filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === "model.call",
      ).length;
      const attempts = history
        .events!.filter((e) => e.activityTaskStartedEventAttributes)
        .map((e) => e.activityTaskStartedEventAttributes!.attempt);
      return { events, result: finished.result as RunResult, requests: model.requests.length, modelCalls, attempts };
    });
  } finally {
    await model.close();
  }
}

describe("a model stream that breaks after it started is retried", () => {
  it.each([
    [
      "the socket is destroyed after the first chunk (terminated ← UND_ERR_SOCKET)",
      { cutAfterChunks: 1, cutBy: "close" },
    ],
    ["the socket is destroyed after the first text chunk", { cutAfterChunks: 2, cutBy: "close" }],
    ["a TCP reset after the first text chunk (terminated ← ECONNRESET)", { cutAfterChunks: 2, cutBy: "reset" }],
    ["the body ends without the final chunk (missing finish_reason)", { cutAfterChunks: 3, cutBy: "end" }],
  ] as const)(
    "%s: the run completes with the second attempt's answer, on one trip, and the stream shows the marker",
    async (_name, cut) => {
      const { events, result, requests, modelCalls, attempts } = await streamedRun(
        `cut-${cut.cutBy}-${cut.cutAfterChunks}`,
        { text: LOST, ...cut },
        () => SECOND,
      );
      expect(result).toMatchObject({ stopReason: "answered", reply: SECOND, trips: 1 });
      expect(requests).toBe(2);
      expect(modelCalls).toBe(1); // one model.call, retried: the trip is counted once
      expect(attempts).toEqual([2]);
      const retry = events.findIndex((e) => e.type === "trip.retry");
      expect(events[retry]).toMatchObject({ type: "trip.retry", trip: 1, attempt: 2 });
      const deltas = (from: number, to: number) =>
        events.slice(from, to).filter((e): e is Delta => e.type === "text.delta");
      const before = deltas(0, retry);
      // What attempt 1's heartbeats showed of its text before the cut: a prefix of what it streamed (deltas are sampled from heartbeats, not logged).
      expect(LOST.slice(0, 8 * (cut.cutAfterChunks - 1)).startsWith(before.map((d) => d.text).join(""))).toBe(true);
      expect(before.every((d) => d.attempt === 1)).toBe(true);
      const after = deltas(retry, events.length);
      expect(after.map((d) => d.text).join("")).toBe(SECOND);
      expect(after.every((d) => d.attempt === 2)).toBe(true);
    },
    60_000,
  );

  it("a tool call cut mid-arguments: attempt 2's call is the one executed, once, and the run goes on", async () => {
    const call = { name: "update_plan", arguments: { from: "squats", to: "lunges" } };
    const executed: unknown[] = [];
    const { result, requests, modelCalls, attempts } = await streamedRun(
      "cut-tool-call",
      { toolCalls: [call], cutAfterChunks: 3 },
      (index) => (index === 1 ? { toolCalls: [call] } : "Swapped: lunges are in."),
      executed,
    );
    expect(executed).toEqual([{ from: "squats", to: "lunges" }]);
    expect(result).toMatchObject({ stopReason: "answered", reply: "Swapped: lunges are in.", trips: 2 });
    expect(result.toolCalls).toMatchObject([
      { name: "update_plan", status: "ok", input: { from: "squats", to: "lunges" } },
    ]);
    expect(requests).toBe(3);
    expect(modelCalls).toBe(2);
    expect(attempts.filter((a) => a === 2)).toHaveLength(1); // the cut trip's model.call, on attempt 2
  }, 60_000);
});

describe("what retrying cannot fix fails the run at once", () => {
  it("a 200 HTML page (a baseURL without /v1): a ModelApiError naming the status, the content type and what came back, after one request", async () => {
    const page =
      "<!doctype html><html><head><title>llama.cpp - chat</title></head><body><div id=app></div></body></html>";
    const model = await startScriptedModel(() => ({ raw: page, contentType: "text/html; charset=utf-8" }));
    const agent = ai.agent({ name: "html-200", model: ai.openai("gpt-html", { baseURL: model.baseURL }) });
    const error = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("hi", { client: harness.client, taskQueue }).catch((e: unknown) => e),
    );
    await model.close();
    expect(error).toBeInstanceOf(ModelApiError);
    expect(error).toMatchObject({
      status: 200,
      modelId: "gpt-html",
      contentType: "text/html; charset=utf-8",
      bodyStart: page,
    });
    expect((error as Error).message).toContain(
      `the server answered 200 with content-type text/html; charset=utf-8, not a chat completion stream (text/event-stream). It sent: ${JSON.stringify(page)}.`,
    );
    expect((error as Error).message).toContain("Check the model's baseURL");
    expect(model.requests).toHaveLength(1);
  }, 60_000);
});
