/**
 * Issue 35, one unit for durations: every option that takes a duration takes Temporal's `Duration`
 * (a number of milliseconds, or a string such as "1500ms" or "5m"); a value that is not one throws
 * the option's typed error naming it; the old forms (`tool.approvalTimeoutMs`, the CLI's bare
 * seconds for `eval --timeout`) still work.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createCoach } from "../examples/evals/coach-agent.js";
import { AgentOptionsError, ai, EvalOptionsError, type Tool } from "../src/index.js";
import { startScriptedModel, type ScriptedModel, type ScriptedTurn } from "../src/testing/index.js";
import { runMain } from "./support/cli-helpers.js";
import { swap, updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, taskQueue, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
/** A model that never answers: runs wait on their first model call until something ends them. */
let hanging: ScriptedModel;
beforeAll(async () => {
  harness = await connectHarness();
  hanging = await startScriptedModel(() => new Promise<ScriptedTurn>(() => undefined));
});
afterAll(async () => {
  await hanging.close();
  await harness.close();
});

const input = z.object({ from: z.string(), to: z.string() });
const execute = async () => ({ ok: true });

/** The typed error `fn` throws (or rejects with). */
async function errorOf(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}

const NOT_DURATIONS = ["soon", "", -1, Number.NaN, Number.POSITIVE_INFINITY, {}] as const;

describe("options.approvalTimeout (ai.tool, agent.asTool)", () => {
  it("takes a Duration: tool.approvalTimeout keeps it as given, the deprecated approvalTimeoutMs is its milliseconds", () => {
    expect(ai.tool({ name: "t", input, execute, needsApproval: true, approvalTimeout: "2 hours" })).toMatchObject({
      approvalTimeout: "2 hours",
      approvalTimeoutMs: 7_200_000,
    });
    expect(ai.tool({ name: "t", input, execute, needsApproval: true, approvalTimeout: 1500 })).toMatchObject({
      approvalTimeout: 1500,
      approvalTimeoutMs: 1500,
    });
    expect(ai.tool({ name: "t", input, execute })).toMatchObject({
      approvalTimeout: undefined,
      approvalTimeoutMs: undefined,
    });
  });

  it.each(NOT_DURATIONS)("%j is an AgentOptionsError naming approvalTimeout and the tool", async (value) => {
    const error = await errorOf(() =>
      ai.tool({ name: "update_plan", input, execute, approvalTimeout: value as never }),
    );
    expect(AgentOptionsError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      field: "approvalTimeout",
      message: expect.stringContaining(`tool "update_plan": must be a duration`),
    });
    const other = ai.agent({ name: "other", model: ai.openai("gpt-test") });
    expect(await errorOf(() => other.asTool({ approvalTimeout: value as never }))).toMatchObject({
      name: "AgentOptionsError",
      field: "approvalTimeout",
    });
  });

  it("a number of milliseconds refuses a call nobody approves in that time", async () => {
    const model = await startScriptedModel([swap(), "It timed out."]);
    const agent = ai.agent({
      name: "ms-approval",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [ai.tool({ name: "update_plan", input, execute, needsApproval: true, approvalTimeout: 500 })],
    });
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("Swap squats for lunges", { client: harness.client, taskQueue }),
    );
    await model.close();
    expect(result.toolCalls).toMatchObject([{ status: "refused", reason: "no approval within 500 ms" }]);
  });

  it("a tool of the old shape, with only the deprecated approvalTimeoutMs, keeps its timeout and its agent's version", async () => {
    const model = await startScriptedModel([swap(), "It timed out."]);
    const define = (tool: Tool) =>
      ai.agent({ name: "old-shape", model: ai.openai("gpt-test", { baseURL: model.baseURL }), tools: [tool] });
    const current = ai.tool({ name: "update_plan", input, execute, needsApproval: true, approvalTimeout: "500ms" });
    const old = define({ ...current, approvalTimeout: undefined, approvalTimeoutMs: 500 });
    expect(old.version).toBe(define(current).version);
    const result = await withWorker(harness, [old], ({ taskQueue }) =>
      old.run("Swap squats for lunges", { client: harness.client, taskQueue }),
    );
    await model.close();
    expect(result.toolCalls).toMatchObject([{ status: "refused", reason: "no approval within 500 ms" }]);
  });
});

describe("options.timeouts (ai.agent)", () => {
  it("take Durations", () => {
    expect(() =>
      ai.agent({
        name: "a",
        model: ai.openai("gpt-test"),
        timeouts: { model: 90_000, tool: "30s", heartbeat: "5 seconds" },
      }),
    ).not.toThrow();
  });

  it.each([...NOT_DURATIONS, 0])("%j is an AgentOptionsError naming the timeout", async (value) => {
    for (const key of ["model", "tool", "heartbeat"] as const) {
      const error = await errorOf(() =>
        ai.agent({ name: "a", model: ai.openai("gpt-test"), timeouts: { [key]: value as never } }),
      );
      expect(error).toMatchObject({
        name: "AgentOptionsError",
        field: `timeouts.${key}`,
        message: expect.stringContaining("must be a positive duration"),
      });
    }
  });
});

describe("run options: timeout and noWorkerWarningAfter", () => {
  const agent = ai.agent({ name: "run-options", model: ai.openai("gpt-test", { baseURL: "http://127.0.0.1:1/v1" }) });

  it.each([...NOT_DURATIONS, 0])(
    "timeout %j is an AgentOptionsError naming it, before any run starts",
    async (value) => {
      const error = await errorOf(() =>
        agent.start("Hi", { client: harness.client, taskQueue: taskQueue(), timeout: value as never }),
      );
      expect(error).toMatchObject({
        name: "AgentOptionsError",
        field: "timeout",
        message: expect.stringContaining("must be a positive duration"),
      });
    },
  );

  it.each(NOT_DURATIONS)("noWorkerWarningAfter %j is an AgentOptionsError naming it", async (value) => {
    const error = await errorOf(() =>
      agent.start("Hi", { client: harness.client, taskQueue: taskQueue(), noWorkerWarningAfter: value as never }),
    );
    expect(error).toMatchObject({ name: "AgentOptionsError", field: "noWorkerWarningAfter" });
  });

  it('a timeout in milliseconds ends the run with "timed-out"', async () => {
    const slow = ai.agent({
      name: "ms-timeout",
      model: ai.openai("gpt-test", { baseURL: hanging.baseURL }),
      tools: [updatePlanTool()],
      timeouts: { heartbeat: "1 second" },
    });
    const result = await withWorker(harness, [slow], ({ taskQueue }) =>
      slow.run("Swap squats", { client: harness.client, taskQueue, timeout: 1000 }),
    );
    expect(result.stopReason).toBe("timed-out");
    expect(result.trace.at(-1)).toMatchObject({
      type: "run.stopped",
      detail: expect.stringMatching(/^timed out after 1000 ms/),
    });
  });
});

describe("agent.eval({ timeout })", () => {
  const cases = [{ name: "hang", input: "Swap squats" }];
  const scorers = [ai.eval.requiredToolCalled({ tools: ["update_plan"] })];

  it.each([...NOT_DURATIONS, 0])("%j is an EvalOptionsError naming timeout", async (value) => {
    const agent = ai.agent({ name: "eval-options", model: ai.openai("gpt-test") });
    const error = await errorOf(() => agent.eval({ cases, scorers, timeout: value as never }));
    expect(EvalOptionsError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ field: "timeout", message: expect.stringContaining("must be a positive duration") });
  });

  it('takes a string: "1500ms" terminates a run still going then', async () => {
    const agent = ai.agent({
      name: "eval-duration",
      model: ai.openai("gpt-test", { baseURL: hanging.baseURL }),
      tools: [updatePlanTool()],
    });
    const report = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.eval({ cases, scorers, timeout: "1500ms", client: harness.client, taskQueue }),
    );
    expect(report.runs[0]).toMatchObject({
      status: "infrastructure-error",
      error: { name: "EvalTimeoutError", message: expect.stringContaining("did not finish within 1500 ms") },
    });
  });
});

describe("the CLI's eval --timeout", () => {
  const module = "examples/evals/coach.eval.ts";

  it.each([
    ["1500ms", "within 1500 ms", ""],
    ["1", "within 1000 ms", "Warning: --timeout 1 (bare seconds) is deprecated: write --timeout 1s."],
  ])(
    "--timeout %s: runs still going then are terminated (a bare number is seconds, with a deprecation warning)",
    async (timeout, within, warning) => {
      const coach = createCoach({ contract: true, model: ai.openai("gpt-test", { baseURL: hanging.baseURL }) });
      const queue = taskQueue();
      const { code, stdout, stderr } = await withWorker(
        harness,
        [coach],
        () => runMain(["eval", module, "--task-queue", queue, "--timeout", timeout, "--address", harness.address]),
        { taskQueue: queue },
      );
      expect(code).toBe(2);
      expect(stderr).toBe(warning);
      expect(stdout).toContain(`EvalTimeoutError: Run durable-agent-eval-coach-`);
      expect(stdout).toContain(within);
    },
  );

  it.each(["soon", "0", "-5m"])("--timeout %s exits 64 naming the option", async (timeout) => {
    const { code, stderr } = await runMain(["eval", module, `--timeout=${timeout}`]);
    expect(code).toBe(64);
    expect(stderr).toContain(`--timeout must be a positive duration such as 90s, 10m or "1 hour" (got "${timeout}").`);
  });
});
