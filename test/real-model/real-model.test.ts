/**
 * Issue 27, item 2: the library through its public API on a real OpenAI-compatible server
 * (llama.cpp's `llama-server --jinja` with a small Qwen2.5-Coder GGUF), on a Temporal dev server.
 * `npm run test:real-model` installs and starts both (global-setup.ts). Every assertion is about
 * what the library guarantees (the run completes and records what happened, usage, schema
 * validity, the contract's re-prompt is sent when its condition holds), never about the words the
 * model chooses. A forcing `toolChoice` (first trip only) or `"none"` makes the condition a test
 * needs hold without relying on the model's judgement.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import {
  ai,
  OutputValidationError,
  type ModelSettings,
  type RunResult,
  type StreamedRunEvent,
  type TraceEvent,
} from "../../src/index.js";
import { createCoach, updatePlan } from "../../examples/evals/coach-agent.js";
import { cases, scorers } from "../../examples/evals/coach-cases.js";
import { connectHarness, withWorker, type Harness } from "../support/harness.js";
import { conversation, Plan, requestShapes, shapeOptions } from "../support/request-shapes.js";
import { defined } from "../../src/core/defined.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

/**
 * The real model; greedy sampling and a cap on answer length keep runs short. llama.cpp reads
 * `max_tokens`, not `max_completion_tokens` (what `maxTokens` sends): the cap goes in `extraBody`.
 * It aborts on `response_format` beside tools when the answer is the typed output: `responseFormatWithTools: false`.
 */
function openaiModel(settings: ModelSettings = {}) {
  return ai.openai(inject("realModelId"), {
    baseURL: inject("realModelBaseURL"),
    temperature: 0,
    seed: 7,
    extraBody: { max_tokens: 256 },
    responseFormatWithTools: false,
    ...settings,
  });
}

/**
 * The same server through the AI SDK (issue 31, item 7): `createOpenAICompatible`, which sends
 * `max_tokens` itself and asks for usage on streams with `includeUsage`. It has no JSON schema
 * mode, so typed output goes in the instructions (after the provider's warning, on this worker).
 */
function aiSdkModel() {
  const provider = createOpenAICompatible({
    name: "llama-cpp",
    baseURL: inject("realModelBaseURL"),
    includeUsage: true,
  });
  return ai.model(provider(inject("realModelId")), { temperature: 0, seed: 7, maxTokens: 256 });
}

/** Each test runs on both paths to the server. */
const MODEL_PATHS = [
  { path: "ai.openai()", model: () => openaiModel() },
  { path: "createOpenAICompatible", model: () => aiSdkModel() },
] as const;

type Agent = ReturnType<typeof ai.agent>;
function runOn(agent: Agent, input: Parameters<Agent["run"]>[0], modelSettings?: ModelSettings): Promise<RunResult> {
  return withWorker(harness, [agent], ({ taskQueue }) =>
    agent.run(input, { client: harness.client, taskQueue, ...defined({ modelSettings }) }),
  );
}

const reprompts = (trace: TraceEvent[]) =>
  trace.filter((e): e is Extract<TraceEvent, { type: "reprompt" }> => e.type === "reprompt");
const answers = (trace: TraceEvent[]) =>
  trace.filter((e): e is Extract<TraceEvent, { type: "model.answered" }> => e.type === "model.answered");

/** Usage as the library records it: tokens counted on every trip (llama.cpp reports usage on every answer, streamed too). */
function expectUsage(result: RunResult) {
  expect(result.usage).toBeDefined();
  expect(result.usage!.inputTokens).toBeGreaterThan(0);
  expect(result.usage!.outputTokens).toBeGreaterThan(0);
  expect(result.usage!.modelCalls).toBe(result.trips);
}

describe.each(MODEL_PATHS)("a real model server (llama.cpp) through $path", ({ model: realModel }) => {
  it("a tool call and its answer: the tool runs with the model's arguments, the run answers, and trace and usage record both trips", async () => {
    const coach = ai.agent({
      name: "real-tool-call",
      model: realModel(),
      instructions: "You are a fitness coach. The user's plan is: squats, push-ups, planks.",
      tools: [updatePlan],
      maxTrips: 4,
    });
    const result = await runOn(coach, "Swap squats for lunges", { toolChoice: "required" });
    expect(result.stopReason).toBe("answered");
    expect(result.toolCalls.length).toBeGreaterThan(0);
    expect(result.toolCalls[0]!.name).toBe("update_plan");
    // The tool ran (ok), or refused arguments outside its library; either way the record says which, as the trace does.
    const call = result.toolCalls[0]!;
    expect(["ok", "refused"]).toContain(call.status);
    expect(answers(result.trace)[0]!.toolCalls).toContain("update_plan");
    expect(result.trace).toContainEqual(
      expect.objectContaining({
        type: "tool.finished",
        tool: "update_plan",
        trip: 1,
        callId: call.id,
        status: call.status,
      }),
    );
    expect(result.trips).toBeGreaterThanOrEqual(2);
    expect(answers(result.trace).at(-1)!.toolCalls).toEqual([]);
    expect(result.reply).toBe(answers(result.trace).at(-1)!.text ?? "");
    expectUsage(result);
  });

  it("a streamed answer: each trip's text deltas join to that trip's answer, the last to the reply, and usage is reported", async () => {
    const agent = ai.agent({
      name: "real-stream",
      model: realModel(),
      instructions: "You are a fitness coach. Answer in two sentences.",
    });
    const events = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const collected: StreamedRunEvent[] = [];
      for await (const event of await agent.stream("What do squats work?", { client: harness.client, taskQueue }))
        collected.push(event);
      return collected;
    });
    const finished = events.at(-1) as Extract<StreamedRunEvent, { type: "run.finished" }>;
    expect(finished.type).toBe("run.finished");
    const deltas = events.filter(
      (e): e is Extract<StreamedRunEvent, { type: "text.delta" }> => e.type === "text.delta",
    );
    expect(deltas.length).toBeGreaterThan(1);
    for (const answered of events.filter(
      (e): e is Extract<StreamedRunEvent, { type: "model.answered" }> => e.type === "model.answered",
    )) {
      expect(
        deltas
          .filter((d) => d.trip === answered.trip)
          .map((d) => d.text)
          .join(""),
      ).toBe(answered.text ?? "");
    }
    expect(deltas.map((d) => d.text).join("")).toBe(finished.result.reply);
    expect(finished.result.stopReason).toBe("answered");
    expectUsage(finished.result);
  });

  it("typed output without tools: result.output is valid under the schema and is the reply parsed", async () => {
    const agent = ai.agent({
      name: "real-output",
      model: realModel(),
      instructions: "You are a fitness coach.",
      output: Plan,
      maxTrips: 3,
    });
    const result = await runOn(agent, "Give me one exercise for my legs and how many sets.");
    expect(result.stopReason).toBe("answered");
    expect(Plan.safeParse(result.output).success).toBe(true);
    expect(JSON.parse(result.reply)).toEqual(result.output);
  });

  it("typed output with tools (the request that crashed llama.cpp): with responseFormatWithTools false the schema goes in the instructions, the tool call's message goes back, and the final output is valid", async () => {
    const agent = ai.agent({
      name: "real-output-tools",
      model: realModel(),
      instructions: "You are a fitness coach. The user's plan is: squats, push-ups, planks.",
      tools: [updatePlan],
      output: Plan,
      maxTrips: 4,
    });
    const result = await runOn(agent, "Swap squats for lunges, then give me the new exercise and how many sets.", {
      toolChoice: "required",
    });
    expect(result.toolCalls[0]!.name).toBe("update_plan");
    expect(result.trips).toBeGreaterThanOrEqual(2);
    expect(result.stopReason).toBe("answered");
    expect(Plan.safeParse(result.output).success).toBe(true);
  });

  for (const shape of requestShapes) {
    it(`request shape ${shape.name}: a conversation with a tool-call-only assistant message, its tool result and content parts is accepted${shape.output ? ", and the output is valid" : ""}`, async () => {
      const agent = ai.agent({ ...shapeOptions(shape), model: realModel() });
      // The server answered every call (no ModelApiError): the run resolves, or, with output, may end with OutputValidationError when the model's JSON does not match after the repair re-prompt.
      const outcome = await runOn(agent, conversation).catch((error: unknown) => error);
      if (shape.output && OutputValidationError.isInstance(outcome)) return;
      if (outcome instanceof Error) throw outcome;
      const result = outcome as RunResult;
      expect(["answered", "max-trips"]).toContain(result.stopReason);
      expect(result.trips).toBeGreaterThanOrEqual(1);
      if (shape.output && result.stopReason === "answered") expect(Plan.safeParse(result.output).success).toBe(true);
      expectUsage(result);
    });
  }

  it("a refusal followed by the refusal retry: when the model answers without calling again after a refusal, the hint quoting the reason is sent as the next user message and the model is called again", async () => {
    const reason = "that exercise is not in the library";
    const refusing = ai.tool({
      name: "update_plan",
      description: "Replace one exercise of the user's plan with another.",
      input: z.object({ from: z.string(), to: z.string() }),
      execute: async () => ({ ok: false, reason }),
    });
    // Room to give up: measured, the 1.5B model called the refusing tool on trips 1-3 and answered without it on trip 4.
    const maxTrips = 6;
    const agent = ai.agent({
      name: "real-refusal",
      model: realModel(),
      instructions: "You are a fitness coach. If a tool refuses, do not call it again: tell the user why.",
      tools: [refusing],
      onToolRefusal: "retry-once-with-hint",
      maxTrips,
    });
    const result = await runOn(agent, "Swap squats for moonwalks", { toolChoice: "required" });
    expect(result.toolCalls.length).toBeGreaterThan(0);
    for (const call of result.toolCalls) expect(call).toMatchObject({ name: "update_plan", status: "refused", reason });
    // The retry's condition: an answer without tool calls (one that would end the run) while a refusal is pending, with a trip left.
    const gaveUp = answers(result.trace).find((a) => a.toolCalls.length === 0);
    const retry = reprompts(result.trace).find((r) => r.kind === "refusal-retry");
    if (gaveUp && gaveUp.trip < maxTrips) {
      expect(retry).toMatchObject({ trip: gaveUp.trip, source: "update_plan" });
      expect(retry!.text).toContain(reason);
      expect(result.messages).toContainEqual({ role: "user", content: retry!.text });
      expect(answers(result.trace).some((a) => a.trip === gaveUp.trip + 1)).toBe(true);
    } else {
      // The model kept calling the refusing tool itself: nothing to retry.
      expect(retry).toBeUndefined();
    }
  });

  it("actWhenAsked: an answer without the required tool call to a request that matches an intent gets the re-prompt, and the model is called again with it", async () => {
    const agent = ai.agent({
      name: "real-act-when-asked",
      model: realModel(),
      instructions: "You are a fitness coach. The user's plan is: squats, push-ups, planks.",
      tools: [updatePlan],
      actWhenAsked: { intents: [/\bswap\b/i], requiredTools: ["update_plan"] },
      maxTrips: 3,
    });
    // tool_choice "none": the model cannot call the tool, so the condition holds on every trip.
    const result = await runOn(agent, "Swap squats for lunges", { toolChoice: "none" });
    expect(answers(result.trace)[0]!.toolCalls).toEqual([]);
    const [act] = reprompts(result.trace);
    expect(act).toMatchObject({ kind: "act-when-asked", trip: 1 });
    expect(result.messages).toContainEqual({ role: "user", content: act!.text });
    expect(answers(result.trace).some((a) => a.trip === 2)).toBe(true);
    expect(result.toolCalls).toEqual([]);
  });

  it("an eval of the example coach cases (examples/evals) with both built-in scorers: every case x scorer is judged, without infrastructure errors", async () => {
    const coach = createCoach({ contract: true, model: realModel() });
    const report = await withWorker(harness, [coach], ({ taskQueue }) =>
      coach.eval({ cases, scorers, client: harness.client, taskQueue, concurrency: 2 }),
    );
    expect(report.totals).toMatchObject({
      cases: cases.length,
      runs: cases.length,
      infrastructureErrors: 0,
      errors: 0,
    });
    for (const evalCase of cases) {
      for (const scorer of ["requiredToolCalled", "changeClaimedWithoutToolCall"]) {
        const row = report.rows.find((r) => r.case === evalCase.name && r.scorer === scorer);
        expect(["pass", "fail", "not-applicable"]).toContain(row?.status);
      }
    }
    // The question matches no intent: requiredToolCalled does not apply, whatever the model says.
    expect(report.rows.find((r) => r.case === "question" && r.scorer === "requiredToolCalled")?.status).toBe(
      "not-applicable",
    );
    expect(report.runs.every((run) => run.status === "completed" && run.usage !== undefined)).toBe(true);
  });

  // llama.cpp takes tool_choice as a string only ({ tool } falls back to "auto"): "required", with the one tool.
  it("a sub-agent call: the parent's tool call runs the sub-agent as its own run, recorded with its usage", async () => {
    const expert = ai.agent({
      name: "exercise_expert",
      model: realModel(),
      instructions: "You know exercises. Answer in one sentence.",
    });
    const parent = ai.agent({
      name: "real-parent",
      model: realModel(),
      instructions: "You are a fitness coach. Ask exercise_expert about exercises.",
      tools: [expert.asTool()],
      maxTrips: 4,
    });
    const result = await runOn(parent, "What muscles do lunges work?", { toolChoice: "required" });
    const started = result.trace.find((e) => e.type === "subagent.started");
    const finished = result.trace.find(
      (e): e is Extract<TraceEvent, { type: "subagent.finished" }> => e.type === "subagent.finished",
    );
    expect(started).toMatchObject({ agent: "exercise_expert", tool: "exercise_expert", trip: 1 });
    expect(finished).toMatchObject({ agent: "exercise_expert", stopReason: "answered" });
    expect(result.stopReason).toBe("answered");
    expect(result.usageByAgent?.exercise_expert?.inputTokens).toBeGreaterThan(0);
    expect(result.usageByAgent?.["real-parent"]?.inputTokens).toBeGreaterThan(0);
  });
});
