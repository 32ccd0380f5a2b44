import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AgentOptionsError,
  ai,
  DuplicateAgentError,
  fromFailure,
  InvalidInputError,
  ModelApiError,
  OutputValidationError,
  PayloadTooLargeError,
  TemporalConnectionError,
  UnknownAgentError,
} from "../src/index.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { connectHarness, testWorker, withWorker, type Harness } from "./support/harness.js";
import { ask, byAgent, testAgent } from "./support/subagent-helpers.js";

let harness: Harness;
let model: ScriptedModel;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(async () => {
  await model?.close();
  await harness.close();
});

const noop = ai.tool({ name: "noop", input: z.object({}), execute: async () => ({ ok: true }) });

describe("bad agent options throw AgentOptionsError naming the field", () => {
  const base = { model: ai.openai("gpt-test"), tools: [noop] };
  it.each([
    ["model", { ...base, model: undefined }],
    ["tools", { ...base, tools: [noop, noop] }],
    ["maxTrips", { ...base, maxTrips: 0 }],
    ["name", { ...base, name: "has spaces" }],
  ])("%s", (field, options) => {
    const error = captureError(() => ai.agent(options as never));
    expect(AgentOptionsError.isInstance(error)).toBe(true);
    expect((error as AgentOptionsError).field).toBe(field);
  });

  it("a tool whose input is not a zod schema", () => {
    const error = captureError(() =>
      ai.tool({ name: "t", input: { type: "object" } as never, execute: async () => 1 }),
    );
    expect(error).toBeInstanceOf(AgentOptionsError);
    expect((error as AgentOptionsError).message).toMatch(/needs a zod \(v4\) schema/);
  });

  it("an agent without a model says how to give one", () => {
    expect(() => ai.agent({ tools: [] } as never)).toThrow(
      /Invalid option `model`: agent "agent" needs a model, e.g. ai.openai\("gpt-4o-mini"\)/,
    );
  });
});

describe("bad run input throws InvalidInputError", () => {
  const agent = ai.agent({ name: "input-agent", model: ai.openai("gpt-test") });
  it.each([[42], [{ text: "hi" }], [""], [[{ role: "wizard", content: "x" }]], [[]]])("%j", async (input) => {
    await expect(agent.start(input as never, { client: harness.client })).rejects.toBeInstanceOf(InvalidInputError);
  });

  it("an input over Temporal's payload limit throws PayloadTooLargeError before anything starts", async () => {
    await expect(agent.start("x".repeat(3 * 1024 * 1024), { client: harness.client })).rejects.toBeInstanceOf(
      PayloadTooLargeError,
    );
  });
});

describe("workers", () => {
  it("refuse two agents with the same name, naming it", async () => {
    const a = ai.agent({ name: "twin", model: ai.openai("m") });
    const b = ai.agent({ name: "twin", model: ai.openai("m") });
    await expect(testWorker(harness, [a, b])).rejects.toThrow(DuplicateAgentError);
    await expect(testWorker(harness, [a, b])).rejects.toThrow(/"twin"/);
  });

  it("fail a run of an agent they do not have at once, listing the registered agents", async () => {
    const served = ai.agent({ name: "served", model: ai.openai("m") });
    const ghost = ai.agent({ name: "ghost", model: ai.openai("m") });
    const error = await withWorker(harness, [served], ({ taskQueue }) =>
      ghost.run("hi", { client: harness.client, taskQueue }).catch((e: unknown) => e),
    );
    expect(error).toBeInstanceOf(UnknownAgentError);
    expect((error as UnknownAgentError).registered).toEqual(["served"]);
    expect((error as Error).message).toMatch(
      /No agent named "ghost" is registered on this worker \(registered: "served"\)/,
    );
  });
});

describe("an unreachable Temporal server", () => {
  it("gives a TemporalConnectionError naming the address, for clients and workers", async () => {
    await expect(ai.connect({ address: "127.0.0.1:1" })).rejects.toThrow(TemporalConnectionError);
    await expect(ai.connect({ address: "127.0.0.1:1" })).rejects.toThrow(/127\.0\.0\.1:1/);
    const agent = ai.agent({ name: "nowhere", model: ai.openai("m") });
    const previous = process.env.TEMPORAL_ADDRESS;
    process.env.TEMPORAL_ADDRESS = "127.0.0.1:1";
    try {
      await expect(ai.worker({ agents: [agent] })).rejects.toThrow(
        /Cannot reach the Temporal server at 127\.0\.0\.1:1/,
      );
    } finally {
      if (previous === undefined) delete process.env.TEMPORAL_ADDRESS;
      else process.env.TEMPORAL_ADDRESS = previous;
    }
  });
});

describe("model API errors", () => {
  it("fail fast on 401 with a ModelApiError naming the status and the model", async () => {
    model = await startScriptedModel([
      { status: 401, body: { error: { message: "Incorrect API key provided", type: "invalid_request_error" } } },
    ]);
    const agent = ai.agent({
      name: "model-401",
      model: ai.openai("gpt-test-401", { baseURL: model.baseURL, apiKey: "wrong" }),
    });
    const error = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("hi", { client: harness.client, taskQueue }).catch((e: unknown) => e),
    );
    expect(error).toBeInstanceOf(ModelApiError);
    expect(error).toMatchObject({ status: 401, modelId: "gpt-test-401" });
    expect((error as Error).message).toMatch(/Model "gpt-test-401" API error 401/);
    expect(model.requests).toHaveLength(1);
    await model.close();
  });

  it.each([429, 503])("retry %i with backoff, honouring Retry-After, and then complete", async (status) => {
    model = await startScriptedModel([
      { status, headers: { "retry-after-ms": "100" } },
      { status, headers: { "retry-after-ms": "100" } },
      "Hello!",
    ]);
    const agent = ai.agent({ name: `model-${status}`, model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const handle = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const run = await agent.start("hi", { client: harness.client, taskQueue });
      return { result: await run.result(), history: await run.workflow.fetchHistory() };
    });
    expect(handle.result.reply).toBe("Hello!");
    expect(handle.result.trips).toBe(1);
    expect(model.requests).toHaveLength(3);
    const started = handle.history.events!.filter((e) => e.activityTaskStartedEventAttributes);
    expect(started.map((e) => e.activityTaskStartedEventAttributes!.attempt)).toEqual([3]);
    await model.close();
  });
});

describe("a typed error thrown in the workflow reaches each caller as its class, with its fields (one fromFailure)", () => {
  const Plan = z.object({ exercise: z.string(), sets: z.number() });
  // The answer and its one repair re-prompt's answer, neither JSON: the workflow throws OutputValidationError.
  const prose = ["Lunges, 3 sets.", "Still prose."];
  const invalid = {
    name: "OutputValidationError",
    text: "Still prose.",
    issues: expect.stringContaining("the answer is not JSON"),
  };

  it("handle.result() of a run, with the run's usage", async () => {
    const scripted = await startScriptedModel(prose, { usage: { prompt_tokens: 8, completion_tokens: 2 } });
    const agent = ai.agent({
      name: "typed-run",
      model: ai.openai("gpt-test", { baseURL: scripted.baseURL }),
      output: Plan,
    });
    const error = await withWorker(harness, [agent], async ({ taskQueue }) =>
      (await agent.start("Plan my legs", { client: harness.client, taskQueue })).result().catch((e: unknown) => e),
    );
    await scripted.close();
    expect(error).toBeInstanceOf(OutputValidationError);
    expect(error).toMatchObject({ ...invalid, usage: { totalTokens: 20, modelCalls: 2 } });
  });

  it("session.send() of the message it ended, and the session goes on", async () => {
    const scripted = await startScriptedModel([...prose, JSON.stringify({ exercise: "lunges", sets: 3 })]);
    const agent = ai.agent({
      name: "typed-session",
      model: ai.openai("gpt-test", { baseURL: scripted.baseURL }),
      output: Plan,
    });
    await withWorker(harness, [agent], async ({ taskQueue }) => {
      const session = agent.session(`typed-${Date.now()}`, { client: harness.client, taskQueue });
      const error = await session.send("Plan my legs").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutputValidationError);
      expect(error).toMatchObject(invalid);
      expect((await session.send("Again, as JSON")).output).toEqual({ exercise: "lunges", sets: 3 });
      await session.end();
    });
    await scripted.close();
  });

  it("the caller of a sub-agent: a failed call, and the error in the trace's subagent.finished entry", async () => {
    const scripted = await startScriptedModel(
      byAgent({
        triage: [{ toolCalls: [ask("planner", "Plan legs")] }, "The planner could not plan."],
        planner: prose,
      }),
    );
    const planner = testAgent("planner", scripted.baseURL, { output: Plan });
    const triage = testAgent("triage", scripted.baseURL, { tools: [planner.asTool()] });
    const result = await withWorker(harness, [triage], ({ taskQueue }) =>
      triage.run("Plan my legs", { client: harness.client, taskQueue }),
    );
    await scripted.close();
    expect(result).toMatchObject({
      stopReason: "answered",
      toolCalls: [
        {
          name: "planner",
          status: "failed",
          error: expect.stringMatching(/^The planner agent failed: The final answer is not valid output/),
        },
      ],
    });
    const finished = result.trace.find((e) => e.type === "subagent.finished");
    expect(finished).toMatchObject({
      agent: "planner",
      stopReason: "failed",
      error: { name: "OutputValidationError", fields: { text: "Still prose." } },
    });
    const error = fromFailure(finished?.type === "subagent.finished" ? finished.error : undefined);
    expect(error).toBeInstanceOf(OutputValidationError);
    expect(error).toMatchObject(invalid);
  });
});

function captureError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}
