/**
 * Issue 13, item 3: typed final output. The model is asked for JSON matching the `output` schema
 * (a strict `json_schema` response format, or the schema in the instructions); the final answer
 * is validated on the worker; `result.output` is the typed value; an invalid answer gets a repair
 * re-prompt in its place in the precedence rule, then `OutputValidationError` or "invalid-output".
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { ai, OutputValidationError, type AgentOptions } from "../src/index.js";
import { startScriptedModel, type ScriptedTurn } from "../src/testing/index.js";
import { swap, updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { optionsErrorField } from "./support/options-helpers.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const Plan = z.object({ exercise: z.string(), sets: z.number().int() });
const valid = JSON.stringify({ exercise: "lunges", sets: 3 });

async function runScript<O extends Partial<AgentOptions>>(
  name: string,
  options: O,
  script: ScriptedTurn[],
  input = "Plan my legs",
) {
  const model = await startScriptedModel(script);
  try {
    const agent = ai.agent({
      name,
      tools: [updatePlanTool()],
      ...options,
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
    });
    const outcome = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run(input, { client: harness.client, taskQueue }).catch((error: unknown) => error),
    );
    return { outcome, requests: model.requests };
  } finally {
    await model.close();
  }
}

describe("output", () => {
  it("asks for a strict json_schema response format, and result.output is the typed, validated value while reply keeps the text", async () => {
    const model = await startScriptedModel([valid]);
    const agent = ai.agent({
      name: "output-plan",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      output: Plan,
      instructions: "You plan workouts.",
    });
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("Plan my legs", { client: harness.client, taskQueue }),
    );
    expectTypeOf(result.output).toEqualTypeOf<{ exercise: string; sets: number } | undefined>();
    expect(result.output).toEqual({ exercise: "lunges", sets: 3 });
    expect(result.reply).toBe(valid);
    expect(model.requests[0]!.body.response_format).toEqual({
      type: "json_schema",
      json_schema: {
        name: "output",
        strict: true,
        schema: {
          type: "object",
          properties: {
            exercise: { type: "string" },
            sets: { type: "integer", minimum: expect.any(Number), maximum: expect.any(Number) },
          },
          required: ["exercise", "sets"],
          additionalProperties: false,
        },
      },
    });
    expect(model.requests[0]!.body.messages[0]).toEqual({ role: "system", content: "You plan workouts." });
    await model.close();
  });

  it('outputMode "prompt" puts the schema in the instructions instead (no response_format), and a fenced JSON answer parses', async () => {
    const { outcome, requests } = await runScript(
      "output-prompt",
      { output: Plan, outputMode: "prompt", outputStrict: false },
      ["```json\n" + valid + "\n```"],
    );
    expect(outcome).toMatchObject({ stopReason: "answered", output: { exercise: "lunges", sets: 3 } });
    expect(requests[0]!.body.response_format).toBeUndefined();
    expect(String(requests[0]!.body.messages[0]!.content)).toContain(
      'reply with only a JSON value (no prose, no code fence) that matches this JSON schema:\n{"type":"object"',
    );
  });

  it("a run's own output schema overrides the agent's, typed per call", async () => {
    const model = await startScriptedModel([JSON.stringify({ ok: true })]);
    const agent = ai.agent({
      name: "output-per-run",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      output: Plan,
    });
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("Is it ok?", { client: harness.client, taskQueue, output: z.object({ ok: z.boolean() }) }),
    );
    expectTypeOf(result.output).toEqualTypeOf<{ ok: boolean } | undefined>();
    expect(result.output).toEqual({ ok: true });
    expect(
      (model.requests[0]!.body.response_format as { json_schema: { schema: unknown } }).json_schema.schema,
    ).toMatchObject({ properties: { ok: { type: "boolean" } }, required: ["ok"] });
    await model.close();
  });

  it("an invalid answer gets one repair re-prompt quoting the validation error, uses a trip and is traced", async () => {
    const { outcome, requests } = await runScript("output-repair", { output: Plan }, [
      JSON.stringify({ exercise: "lunges", sets: "three" }),
      valid,
    ]);
    expect(outcome).toMatchObject({ stopReason: "answered", trips: 2, output: { exercise: "lunges", sets: 3 } });
    const repair = (outcome as { trace: Array<{ type: string; kind?: string; text?: string }> }).trace.find(
      (e) => e.type === "reprompt",
    );
    expect(repair).toMatchObject({
      kind: "output-repair",
      text: expect.stringContaining("expected number, received string → at sets"),
    });
    expect(requests[1]!.body.messages.at(-1)).toEqual({ role: "user", content: repair!.text });
  });

  it("still invalid after the repairs: OutputValidationError with the issues and the text", async () => {
    const { outcome, requests } = await runScript("output-fails", { output: Plan }, [
      "Lunges, 3 sets.",
      "Still prose.",
    ]);
    expect(requests).toHaveLength(2);
    expect(OutputValidationError.isInstance(outcome)).toBe(true);
    expect(outcome).toMatchObject({
      name: "OutputValidationError",
      text: "Still prose.",
      issues: expect.stringContaining("the answer is not JSON"),
    });
  });

  it('onFailure "result" ends the run with stopReason "invalid-output" instead; retries and a hint function are honoured', async () => {
    const hints: string[] = [];
    const { outcome, requests } = await runScript(
      "output-result",
      {
        output: Plan,
        onInvalidOutput: {
          retries: 2,
          onFailure: "result",
          hint: ({ issues, text }) => (hints.push(text), `Fix it: ${issues}`),
        },
      },
      ["{}", "[]", "null"],
    );
    expect(requests).toHaveLength(3);
    expect(hints).toEqual(["{}", "[]"]);
    expect(outcome).toMatchObject({ stopReason: "invalid-output", reply: "null" });
    expect((outcome as { output?: unknown }).output).toBeUndefined();
    expect(requests[1]!.body.messages.at(-1)!.content).toMatch(
      /^Fix it: ✖ Invalid input: expected string, received undefined → at exercise/,
    );
  });

  it("precedence: the refusal retry goes before the output repair, and the output repair before actWhenAsked", async () => {
    const { outcome } = await runScript(
      "output-precedence",
      {
        output: Plan,
        onToolRefusal: "retry-once-with-hint",
        actWhenAsked: { intents: ["swap"], requiredTools: ["update_plan"] },
      },
      [
        swap("moonwalks"), // refused
        "Sorry, I could not.", // invalid, a refusal pending, no tool acted: the refusal retry
        "Want me to swap it?", // invalid, no tool acted: the output repair (before actWhenAsked)
        valid, // valid, but no tool acted: actWhenAsked
        swap("lunges"),
        valid,
      ],
      "Swap squats for lunges",
    );
    const kinds = (outcome as { trace: Array<{ type: string; kind?: string }> }).trace
      .filter((e) => e.type === "reprompt")
      .map((e) => e.kind);
    expect(kinds).toEqual(["refusal-retry", "output-repair", "act-when-asked"]);
    expect(outcome).toMatchObject({ stopReason: "answered", trips: 6, output: { exercise: "lunges", sets: 3 } });
  });

  it("eval records carry the output, so scorers can check it", async () => {
    const model = await startScriptedModel(() => valid);
    const agent = ai.agent({
      name: "output-eval",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      output: Plan,
    });
    const report = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.eval({
        cases: [{ name: "legs", input: "Plan my legs" }],
        scorers: [
          { name: "three sets", score: (record) => ({ pass: (record.output as z.infer<typeof Plan>).sets === 3 }) },
        ],
        client: harness.client,
        taskQueue,
      }),
    );
    expect(report.totals).toMatchObject({ passed: 1, failed: 0 });
    await model.close();
  });

  it("bad output options are AgentOptionsErrors naming the field", async () => {
    const model = ai.openai("gpt-test");
    const field = optionsErrorField;
    expect(field(() => ai.agent({ model, output: { type: "object" } as never }))).toBe("output");
    expect(field(() => ai.agent({ model, output: Plan, outputMode: "json" as never }))).toBe("outputMode");
    expect(field(() => ai.agent({ model, output: Plan, outputStrict: "yes" as never }))).toBe("outputStrict");
    expect(field(() => ai.agent({ model, output: Plan, onInvalidOutput: { retries: -1 } }))).toBe(
      "onInvalidOutput.retries",
    );
    expect(field(() => ai.agent({ model, output: Plan, onInvalidOutput: { onFailure: "ignore" as never } }))).toBe(
      "onInvalidOutput.onFailure",
    );
    expect(field(() => ai.agent({ model, output: Plan, onInvalidOutput: { retry: 2 } as never }))).toBe(
      "onInvalidOutput.retry",
    );
    const agent = ai.agent({ name: "output-bad-run", model });
    await expect(agent.start("hi", { output: "json" as never })).rejects.toMatchObject({
      name: "AgentOptionsError",
      field: "output",
    });
  });
});
