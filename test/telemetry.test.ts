/**
 * Issue 6, item 6: OpenTelemetry spans through Temporal's interceptors, checked with an in-memory
 * exporter: the run, each trip's model call, the tool call, the backstop and the contract check
 * that led to a re-prompt, their durable_agent.* attributes, and their parent links.
 */
import * as otel from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import type { WorkflowHandle } from "@temporalio/client";
import { historyFromJSON } from "@temporalio/common/lib/proto-utils.js";
import { Worker, type WorkerOptions } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import {
  ai,
  bundleTelemetryWorkflows,
  GEN_AI_ATTRIBUTE,
  SPAN_ATTRIBUTE,
  telemetryWorkerOptions,
} from "../src/index.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { committedFixtures } from "./support/history-helpers.js";

let harness: Harness;
let model: ScriptedModel;
beforeAll(async () => {
  harness = await connectHarness();
  // Offers instead of acting (re-prompted by actWhenAsked), then calls the tool, then confirms.
  model = await startScriptedModel(
    [
      "Lunges are a great swap. Want me to swap that?",
      { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] },
      "Done: squats are now lunges. Go easy on that knee.",
    ],
    { usage: ({ index }) => ({ prompt_tokens: 100 + index, completion_tokens: 10 + index }) },
  );
});
afterAll(async () => {
  await model.close();
  await harness.close();
});

const coach = () =>
  ai.agent({
    name: "otel-coach",
    model: ai.openai("gpt-test", { baseURL: model.baseURL }),
    tools: [
      ai.tool({
        name: "update_plan",
        input: z.object({ from: z.string(), to: z.string() }),
        execute: async (input) => ({ ok: true, swapped: input }),
      }),
    ],
    actWhenAsked: { intents: [/\bswap\b/i], requiredTools: ["update_plan"] },
    backstops: [
      {
        name: "injury-capture",
        phase: "before",
        detect: (turn) => /hurts/.test(turn.input),
        run: async () => ({ prompt: "Acknowledge the injury first." }),
      },
    ],
  });

let recorded: { workflowId: string; history: Awaited<ReturnType<WorkflowHandle["fetchHistory"]>> } | undefined;

async function replayFailures(
  workflowBundle: WorkerOptions["workflowBundle"],
  histories: Array<{ workflowId: string; history: unknown }>,
  sinks?: WorkerOptions["sinks"],
) {
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories(
    { workflowBundle, sinks, replayName: "telemetry-replay" },
    histories as never,
  )) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  return failures;
}

describe("telemetry", () => {
  it("off by default: with a global tracer provider registered, a worker and client without `telemetry` make no span and send no trace header", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    expect(otel.trace.setGlobalTracerProvider(provider)).toBe(true);
    const offModel = await startScriptedModel(["Hi."]);
    try {
      const agent = ai.agent({ name: "otel-off", model: ai.openai("gpt-test", { baseURL: offModel.baseURL }) });
      const result = await withWorker(harness, [agent], ({ taskQueue }) =>
        agent.run("Hello", { client: harness.client, taskQueue }),
      );
      const history = await harness.client.workflow.getHandle(result.workflowId).fetchHistory();
      const headers = history.events!.flatMap((e) =>
        Object.keys(
          e.workflowExecutionStartedEventAttributes?.header?.fields ??
            e.activityTaskScheduledEventAttributes?.header?.fields ??
            {},
        ),
      );
      expect(headers).not.toContain("_tracer-data");
      expect(exporter.getFinishedSpans()).toEqual([]);
    } finally {
      otel.trace.disable();
      await offModel.close();
    }
  });

  it("spans for the run, every trip's model call, the tool call, the backstop and the contract checks, linked parent to child in one trace", async () => {
    const exporter = new InMemorySpanExporter();
    const telemetry = { spanProcessor: new SimpleSpanProcessor(exporter) };
    const agent = coach();
    const client = await ai.connect({ address: harness.address, telemetry });
    try {
      // No workflowBundle: the worker bundles the workflow with Temporal's OpenTelemetry workflow interceptors.
      const result = await withWorker(
        harness,
        [agent],
        ({ taskQueue }) => agent.run("Swap squats for lunges, my knee hurts", { client, taskQueue }),
        { telemetry, workflowBundle: undefined },
      );
      expect(result).toMatchObject({ stopReason: "answered", trips: 3 });
      recorded = {
        workflowId: result.workflowId,
        history: await client.workflow.getHandle(result.workflowId).fetchHistory(),
      };
      expect(result.trace.filter((e) => e.type === "reprompt").map((e) => e.type === "reprompt" && e.kind)).toEqual([
        "act-when-asked",
      ]);
    } finally {
      await client.connection.close();
    }

    const spans = exporter.getFinishedSpans();
    const named = (name: string) => spans.filter((span) => span.name === name);
    const one = (name: string) => {
      const found = named(name);
      expect(found, name).toHaveLength(1);
      return found[0]!;
    };
    const parentOf = (span: ReadableSpan) =>
      spans.find((candidate) => candidate.spanContext().spanId === span.parentSpanId);

    // The run: the client's start span is the root; the workflow's run span is its child.
    const start = one("StartWorkflow:agentRun");
    expect(start.parentSpanId).toBeUndefined();
    expect(start.attributes).toMatchObject({ [SPAN_ATTRIBUTE.kind]: "run", [SPAN_ATTRIBUTE.agent]: "otel-coach" });
    const run = one("RunWorkflow:agentRun");
    expect(parentOf(run)).toBe(start);
    expect(run.attributes).toMatchObject({
      [SPAN_ATTRIBUTE.kind]: "run",
      [SPAN_ATTRIBUTE.agent]: "otel-coach",
      [SPAN_ATTRIBUTE.stopReason]: "answered",
      [SPAN_ATTRIBUTE.trips]: 3,
      [SPAN_ATTRIBUTE.reprompts]: 1,
    });
    // Re-prompts and backstops are decided in the workflow: events on the run span, from the run's trace.
    expect(run.events.map((event) => [event.name, event.attributes])).toEqual([
      [
        "durable_agent.backstop",
        {
          [SPAN_ATTRIBUTE.trip]: 0,
          [SPAN_ATTRIBUTE.backstop]: "injury-capture",
          [SPAN_ATTRIBUTE.backstopOutcome]: "detected",
        },
      ],
      [
        "durable_agent.backstop",
        {
          [SPAN_ATTRIBUTE.trip]: 0,
          [SPAN_ATTRIBUTE.backstop]: "injury-capture",
          [SPAN_ATTRIBUTE.backstopOutcome]: "prompted",
        },
      ],
      ["durable_agent.reprompt", { [SPAN_ATTRIBUTE.trip]: 1, [SPAN_ATTRIBUTE.repromptKind]: "act-when-asked" }],
    ]);
    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(new Set([start.spanContext().traceId]));

    // Every activity: scheduled by the run (StartActivity, child of the run), run on the worker (RunActivity, child of that).
    const executed = (type: string) =>
      named(`RunActivity:${type}`).map((span) => {
        const scheduled = parentOf(span);
        expect(scheduled?.name).toBe(`StartActivity:${type}`);
        expect(parentOf(scheduled!)).toBe(run);
        return span.attributes;
      });

    // Trips: one model call each, numbered, with the model, what the answer asked for and the tokens it reported (GenAI conventions).
    expect(
      executed("model.call").sort((a, b) => Number(a[SPAN_ATTRIBUTE.trip]) - Number(b[SPAN_ATTRIBUTE.trip])),
    ).toEqual(
      [1, 2, 3].map((trip) =>
        expect.objectContaining({
          [SPAN_ATTRIBUTE.kind]: "trip",
          [SPAN_ATTRIBUTE.agent]: "otel-coach",
          [SPAN_ATTRIBUTE.trip]: trip,
          [SPAN_ATTRIBUTE.model]: "gpt-test",
          [SPAN_ATTRIBUTE.answerToolCalls]: trip === 2 ? 1 : 0,
          [GEN_AI_ATTRIBUTE.inputTokens]: 100 + trip - 1,
          [GEN_AI_ATTRIBUTE.outputTokens]: 10 + trip - 1,
        }),
      ),
    );
    // The tool call, with its outcome.
    expect(executed("tool.execute")).toEqual([
      expect.objectContaining({
        [SPAN_ATTRIBUTE.kind]: "tool-call",
        [SPAN_ATTRIBUTE.tool]: "update_plan",
        [SPAN_ATTRIBUTE.trip]: 2,
        [SPAN_ATTRIBUTE.toolCallStatus]: "ok",
        [SPAN_ATTRIBUTE.toolCallId]: expect.any(String),
      }),
    ]);
    // The backstop, which prompted.
    expect(executed("backstop.run")).toEqual([
      expect.objectContaining({
        [SPAN_ATTRIBUTE.kind]: "backstop",
        [SPAN_ATTRIBUTE.backstop]: "injury-capture",
        [SPAN_ATTRIBUTE.trip]: 0,
        [SPAN_ATTRIBUTE.backstopPrompted]: true,
      }),
    ]);
    // The contract checks (local activities): the backstop detected before trip 1, the act-when-asked re-prompt after it.
    const contract = executed("contract.evaluate");
    expect(contract).toContainEqual(
      expect.objectContaining({
        [SPAN_ATTRIBUTE.kind]: "contract",
        [SPAN_ATTRIBUTE.trip]: 0,
        [SPAN_ATTRIBUTE.detected]: ["injury-capture"],
        [SPAN_ATTRIBUTE.repromptCandidates]: [],
      }),
    );
    expect(contract).toContainEqual(
      expect.objectContaining({
        [SPAN_ATTRIBUTE.kind]: "contract",
        [SPAN_ATTRIBUTE.trip]: 1,
        [SPAN_ATTRIBUTE.repromptCandidates]: ["act-when-asked"],
      }),
    );
  }, 120_000);

  it("replay is unaffected: the committed fixtures replay on a telemetry worker, and a run recorded with telemetry replays without it", async () => {
    // Left out: streamed-text.json, a run recorded by 0.1's stream (subscribers polled with Updates). The
    // telemetry interceptors complete such a poll Update in a different order beside an activity, and
    // that history fails on a telemetry worker with the code that recorded it too (checked against
    // 05d7949); today's subscribers use no Updates, so no new history has the shape (docs/operating-runs.md).
    const histories = committedFixtures()
      .filter(({ workflowId }) => workflowId !== "streamed-text.json")
      .map(({ workflowId, history }) => ({ workflowId, history: historyFromJSON(history) }));
    expect(histories.length).toBeGreaterThan(0);
    const { sinks } = telemetryWorkerOptions(
      { spanProcessor: new SimpleSpanProcessor(new InMemorySpanExporter()) },
      [],
    );
    expect(await replayFailures(await bundleTelemetryWorkflows(), histories, sinks)).toEqual([]);
    expect(recorded, "the spans test records a history").toBeDefined();
    expect(await replayFailures({ codePath: inject("workflowBundlePath") }, [recorded!])).toEqual([]);
  }, 120_000);
});
