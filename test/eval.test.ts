/** Issue 4, items 1, 4 and 5 on real runs: agent.eval against the suite's Temporal server and a scripted model. */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { ai, defineScorer, EvalOptionsError, notApplicable, type EvalRecord, type Scorer } from "../src/index.js";
import {
  startScriptedModel,
  type ScriptedModel,
  type ScriptedRequest,
  type ScriptedTurn,
} from "../src/testing/index.js";
import { swap, updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, taskQueue, withWorker, type Harness } from "./support/harness.js";

/** Answers by the run's last user message that names a behaviour; `flip` alternates offer / act across runs. */
function byInput(): (request: ScriptedRequest) => ScriptedTurn | Promise<ScriptedTurn> {
  let flips = 0;
  return ({ body }) => {
    const keyword = /^(act|refused|offer|claim|question|boom|hang|flip)\b/;
    const input = String(
      body.messages.findLast((m) => m.role === "user" && keyword.test(String(m.content)))?.content ?? "",
    );
    const afterTool = body.messages.at(-1)?.role === "tool";
    if (input.startsWith("act")) return afterTool ? "Done: squats are now lunges." : swap();
    if (input.startsWith("refused")) return afterTool ? "Done!" : swap("moonwalks");
    if (input.startsWith("offer")) return "Want me to swap that?";
    if (input.startsWith("claim")) return "Done — squats are now lunges.";
    if (input.startsWith("question")) return "Squats work your legs.";
    if (input.startsWith("boom"))
      return { status: 401, body: { error: { message: "Incorrect API key provided", type: "invalid_request_error" } } };
    if (input.startsWith("hang")) return new Promise<ScriptedTurn>(() => undefined);
    if (input.startsWith("flip")) return afterTool ? "Done." : flips++ % 2 === 0 ? "Want me to swap that?" : swap();
    return "I don't know.";
  };
}

const requiredToolCalled = ai.eval.requiredToolCalled({
  tools: ["update_plan"],
  intents: [/\b(swap|act|offer|claim|refused|flip)\b/i],
});
const changeClaimedWithoutToolCall = ai.eval.changeClaimedWithoutToolCall({ tools: ["update_plan"] });

let harness: Harness;
let model: ScriptedModel;
beforeAll(async () => {
  harness = await connectHarness();
  model = await startScriptedModel(byInput());
});
afterAll(async () => {
  await model.close();
  await harness.close();
});

const coach = (name = "eval-coach") =>
  ai.agent({ name, model: ai.openai("gpt-test", { baseURL: model.baseURL }), tools: [updatePlanTool()] });

describe("agent.eval({ cases, scorers, trials, concurrency })", () => {
  it("The seed's example runs as written (client and task queue from TEMPORAL_ADDRESS and TEMPORAL_TASK_QUEUE)", async () => {
    const queue = taskQueue();
    const saved = { address: process.env.TEMPORAL_ADDRESS, queue: process.env.TEMPORAL_TASK_QUEUE };
    process.env.TEMPORAL_ADDRESS = inject("temporalAddress");
    process.env.TEMPORAL_TASK_QUEUE = queue;
    try {
      const swapModel = await startScriptedModel([swap(), "Done: squats are now lunges."]);
      const coach = ai.agent({
        name: "coach",
        model: ai.openai("gpt-test", { baseURL: swapModel.baseURL }),
        tools: [updatePlanTool()],
      });
      const report = await withWorker(
        harness,
        [coach],
        async () => {
          const report = await coach.eval({
            cases: [{ name: "swap", input: "Swap squats for lunges" }],
            scorers: [
              ai.eval.requiredToolCalled({ tools: ["update_plan"], intents: [/\bswap\b/i] }),
              ai.eval.changeClaimedWithoutToolCall({ tools: ["update_plan"] }),
            ],
          });
          return report;
        },
        { taskQueue: queue },
      );
      await swapModel.close();
      expect(report.rows.map((r) => [r.scorer, r.status])).toEqual([
        ["requiredToolCalled", "pass"],
        ["changeClaimedWithoutToolCall", "pass"],
      ]);
      expect(report.runs[0]).toMatchObject({
        status: "completed",
        reply: "Done: squats are now lunges.",
        toolCalls: [{ name: "update_plan", status: "ok" }],
      });
    } finally {
      if (saved.address === undefined) delete process.env.TEMPORAL_ADDRESS;
      else process.env.TEMPORAL_ADDRESS = saved.address;
      if (saved.queue === undefined) delete process.env.TEMPORAL_TASK_QUEUE;
      else process.env.TEMPORAL_TASK_QUEUE = saved.queue;
    }
  });

  it("each case trial is a real durable run: its own agentRun workflow, completed on Temporal", async () => {
    const agent = coach();
    const report = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.eval({
        cases: [{ name: "act", input: "act: swap squats" }],
        scorers: [requiredToolCalled],
        trials: 3,
        client: harness.client,
        taskQueue,
      }),
    );
    const ids = report.runs.map((r) => r.workflowId);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) {
      const description = await harness.client.workflow.getHandle(id).describe();
      expect(description).toMatchObject({ type: "agentRun", status: { name: "COMPLETED" } });
    }
    expect(report.runs.map((r) => r.runId)).toEqual(
      await Promise.all(ids.map(async (id) => (await harness.client.workflow.getHandle(id).describe()).runId)),
    );
  });

  it("every scorer gets the same record for a case and trial: { case, input, reply, toolCalls (with status), messages, trace, stopReason }", async () => {
    const seen: Array<[string, EvalRecord]> = [];
    const spy = (name: string): Scorer =>
      defineScorer(name, (record) => {
        seen.push([name, record]);
        return { pass: true };
      });
    const agent = coach();
    const conversation = [
      { role: "user" as const, content: "hello" },
      { role: "assistant" as const, content: "hi" },
      { role: "user" as const, content: "refused: swap squats" },
    ];
    await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.eval({
        cases: [{ name: "refused", input: conversation, owner: "team-a" }],
        scorers: [spy("first"), spy("second")],
        client: harness.client,
        taskQueue,
      }),
    );
    expect(seen.map(([name]) => name).sort()).toEqual(["first", "second"]);
    expect(seen[0]![1]).toBe(seen[1]![1]);
    const record = seen[0]![1];
    expect(record).toMatchObject({
      case: { name: "refused", owner: "team-a" },
      input: "refused: swap squats",
      trial: 1,
      reply: "Done!",
      stopReason: "answered",
      trips: 2,
    });
    expect(record.toolCalls).toEqual([
      expect.objectContaining({ name: "update_plan", status: "refused", reason: "moonwalks is not in the library" }),
    ]);
    expect(record.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "tool", "assistant"]);
    expect(record.trace).toContainEqual(expect.objectContaining({ type: "tool.finished", status: "refused" }));
  });

  it("calls onCaseFinished once per case, after all its trials, with the outcomes", async () => {
    const agent = coach();
    const progress: unknown[] = [];
    await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.eval({
        cases: [
          { name: "offer", input: "offer: swap" },
          { name: "act", input: "act: swap" },
        ],
        scorers: [requiredToolCalled],
        trials: 2,
        client: harness.client,
        taskQueue,
        onCaseFinished: (p) =>
          progress.push({ case: p.case, outcomes: p.outcomes, finished: p.finished, total: p.total }),
      }),
    );
    expect(progress).toHaveLength(2);
    expect(progress).toContainEqual(expect.objectContaining({ case: "offer", outcomes: ["fail", "fail"], total: 2 }));
    expect(progress).toContainEqual(expect.objectContaining({ case: "act", outcomes: ["pass", "pass"], total: 2 }));
    expect(progress.map((p) => (p as { finished: number }).finished)).toEqual([1, 2]);
  });

  it("concurrency limits the runs in flight: never more than 2 of 6 open at once on Temporal, and 2 do overlap", async () => {
    let waiting: Array<() => void> = [];
    const paired = await startScriptedModel(async () => {
      // Hold each model call until a second one arrives, so two runs are always open together.
      if (waiting.length === 0) await new Promise<void>((resolve) => waiting.push(resolve));
      else {
        waiting.forEach((release) => release());
        waiting = [];
      }
      return "Squats work your legs.";
    });
    const agent = ai.agent({ name: "paired", model: ai.openai("gpt-test", { baseURL: paired.baseURL }) });
    const cases = Array.from({ length: 6 }, (_, i) => ({ name: `case-${i}`, input: `question ${i}` }));
    const report = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.eval({ cases, scorers: [changeClaimedWithoutToolCall], concurrency: 2, client: harness.client, taskQueue }),
    );
    await paired.close();
    const spans = await Promise.all(
      report.runs.map(async (run) => {
        const d = await harness.client.workflow.getHandle(run.workflowId).describe();
        return [d.startTime.getTime(), d.closeTime!.getTime()] as const;
      }),
    );
    const open = (t: number) => spans.filter(([start, close]) => start <= t && t < close).length;
    expect(Math.max(...spans.map(([start]) => open(start)))).toBe(2);
  });

  it("trials > 1: a case that passes some trials and fails others is flagged flaky, with pass@1 and pass^k", async () => {
    const agent = coach();
    const report = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.eval({
        cases: [
          { name: "flip", input: "flip: swap squats" },
          { name: "act", input: "act: swap squats" },
        ],
        scorers: [requiredToolCalled],
        trials: 4,
        concurrency: 1,
        client: harness.client,
        taskQueue,
      }),
    );
    expect(report.cases).toEqual([
      expect.objectContaining({
        case: "flip",
        outcomes: ["fail", "pass", "fail", "pass"],
        passAt1: 0.5,
        passHatK: false,
        flaky: true,
      }),
      expect.objectContaining({
        case: "act",
        outcomes: ["pass", "pass", "pass", "pass"],
        passAt1: 1,
        passHatK: true,
        flaky: false,
      }),
    ]);
    expect(report.totals).toMatchObject({ flakyCases: 1, passHatKRate: 0.5 });
  });
});

describe("custom scorers", () => {
  it("a named function, { name, score }, and an async scorer all score; score and reason are kept", async () => {
    const replyLength = function replyLength(record: EvalRecord) {
      return { pass: record.reply.length < 100, score: record.reply.length / 100 };
    };
    const polite: Scorer = {
      name: "polite",
      score: (record) => ({ pass: !/\bno\b/i.test(record.reply), reason: "checked for 'no'" }),
    };
    const asyncScorer = defineScorer("async", async (record) =>
      record.toolCalls.length > 0 ? { pass: true } : notApplicable("no tool calls"),
    );
    const agent = coach();
    const report = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.eval({
        cases: [{ name: "question", input: "question: squats?" }],
        scorers: [replyLength, polite, asyncScorer],
        client: harness.client,
        taskQueue,
      }),
    );
    expect(report.rows.map(({ scorer, status, score, reason }) => ({ scorer, status, score, reason }))).toEqual([
      { scorer: "replyLength", status: "pass", score: 0.22, reason: undefined },
      { scorer: "polite", status: "pass", score: undefined, reason: "checked for 'no'" },
      { scorer: "async", status: "not-applicable", score: undefined, reason: "no tool calls" },
    ]);
  });

  it("a scorer that throws (or returns no verdict) is reported as an error, kept apart from failures; the other scorers still score", async () => {
    const throws = defineScorer("throws", () => {
      throw new TypeError("cannot read reply");
    });
    const malformed = defineScorer("malformed", () => ({ ok: true }) as never);
    const agent = coach();
    const report = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.eval({
        cases: [{ name: "offer", input: "offer: swap" }],
        scorers: [throws, malformed, requiredToolCalled],
        client: harness.client,
        taskQueue,
      }),
    );
    expect(report.rows).toEqual([
      expect.objectContaining({
        scorer: "throws",
        status: "error",
        error: { name: "TypeError", message: "cannot read reply" },
      }),
      expect.objectContaining({
        scorer: "malformed",
        status: "error",
        error: {
          name: "ScorerResultError",
          message: expect.stringContaining('Scorer "malformed" returned an object without a boolean `pass`'),
        },
      }),
      expect.objectContaining({ scorer: "requiredToolCalled", status: "fail", reason: "required tool not called" }),
    ]);
    expect(report.totals).toMatchObject({ errors: 2, failed: 1, passRate: 0 });
    expect(report.scorers[0]).toMatchObject({ scorer: "throws", errors: 1, failed: 0, passRate: null });
  });
});

describe("infrastructure errors", () => {
  it("a run that rejects (the model API refuses the key) is counted apart from quality failures; the other cases are judged", async () => {
    const agent = coach();
    const report = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.eval({
        cases: [
          { name: "down", input: "boom: swap" },
          { name: "claim", input: "claim: swap" },
        ],
        scorers: [requiredToolCalled, changeClaimedWithoutToolCall],
        client: harness.client,
        taskQueue,
      }),
    );
    expect(report.runs[0]).toMatchObject({
      case: "down",
      status: "infrastructure-error",
      error: { name: "ModelApiError", message: expect.stringContaining("401") },
    });
    expect(report.rows.filter((r) => r.case === "down").map((r) => r.status)).toEqual([
      "infrastructure-error",
      "infrastructure-error",
    ]);
    expect(report.totals).toMatchObject({ infrastructureErrors: 1, failed: 2, passed: 0, passRate: 0 });
    expect(report.check()).toMatchObject({ exitCode: 2, passed: false });
  });

  it("a run that does not finish within `timeout` is terminated and counted as an EvalTimeoutError", async () => {
    const agent = coach();
    const report = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.eval({
        cases: [{ name: "hang", input: "hang: swap" }],
        scorers: [requiredToolCalled],
        timeout: 1500,
        client: harness.client,
        taskQueue,
      }),
    );
    expect(report.runs[0]).toMatchObject({
      status: "infrastructure-error",
      error: { name: "EvalTimeoutError", message: expect.stringContaining("did not finish within 1500 ms") },
    });
    const description = await harness.client.workflow.getHandle(report.runs[0]!.workflowId).describe();
    expect(description.status.name).toBe("TERMINATED");
  });
});

describe("hand-written cases", () => {
  it("a case's context reaches the run: an agent with a contextSchema passes a case that gives it", async () => {
    const echo = await startScriptedModel(
      ({ body }) => `system: ${String(body.messages.find((m) => m.role === "system")?.content)}`,
    );
    const agent = ai.agent({
      name: "eval-context",
      model: ai.openai("gpt-test", { baseURL: echo.baseURL }),
      contextSchema: z.object({ userId: z.string() }),
      instructions: ({ context }) => `Coach user ${(context as { userId: string }).userId}.`,
    });
    const greetsTheUser = defineScorer("greetsTheUser", (record) => ({
      pass: record.reply.includes("u-7"),
      reason: record.reply,
    }));
    const report = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.eval({
        cases: [{ name: "with-context", input: "Plan my week", context: { userId: "u-7" } }],
        scorers: [greetsTheUser],
        client: harness.client,
        taskQueue,
      }),
    );
    await echo.close();
    expect(report.runs[0]).toMatchObject({ status: "completed", reply: "system: Coach user u-7." });
    expect(report.rows.map((r) => [r.scorer, r.status])).toEqual([["greetsTheUser", "pass"]]);
  });
});

describe("approvals", () => {
  /** A coach whose update_plan waits for approval; nobody but the eval decides (after 20 s the call times out). */
  const approvalCoach = (name: string, baseURL: string, executed: unknown[] = []) =>
    ai.agent({
      name,
      model: ai.openai("gpt-test", { baseURL }),
      tools: [
        ai.tool({
          name: "update_plan",
          input: z.object({ from: z.string(), to: z.string() }),
          needsApproval: true,
          approvalTimeout: "20 seconds",
          execute: async (input) => (executed.push(input), { ok: true }),
        }),
      ],
    });
  /** "Swap squats for X": a call of update_plan to X, then "Done." after its result. */
  const swapper = () =>
    startScriptedModel(({ body }) => {
      if (body.messages.at(-1)?.role === "tool") return "Done.";
      const to = /for (\w+)/.exec(String(body.messages.findLast((m) => m.role === "user")?.content))?.[1] ?? "lunges";
      return { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to } }] };
    });

  it('approvals: "approve" and "reject" decide each waiting call as soon as it waits, recorded by "eval"', async () => {
    const model = await swapper();
    const executed: unknown[] = [];
    const agent = approvalCoach("eval-approvals", model.baseURL, executed);
    const cases = [{ name: "swap", input: "Swap squats for lunges" }];
    const scorers = [ai.eval.requiredToolCalled({ tools: ["update_plan"] })];
    const [approved, rejected] = await withWorker(harness, [agent], ({ taskQueue }) =>
      Promise.all([
        agent.eval({ cases, scorers, approvals: "approve", client: harness.client, taskQueue }),
        agent.eval({ cases, scorers, approvals: "reject", client: harness.client, taskQueue }),
      ]),
    );
    await model.close();
    expect(approved.runs[0]).toMatchObject({
      status: "completed",
      toolCalls: [{ name: "update_plan", status: "ok" }],
      approvals: [{ tool: "update_plan", outcome: "approved", by: "eval" }],
    });
    expect(approved.rows.map((r) => r.status)).toEqual(["pass"]);
    expect(rejected.runs[0]).toMatchObject({
      status: "completed",
      toolCalls: [{ name: "update_plan", status: "refused" }],
      approvals: [
        {
          tool: "update_plan",
          outcome: "rejected",
          by: "eval",
          reason: expect.stringContaining("the eval's approval policy"),
        },
      ],
    });
    expect(rejected.rows.map((r) => r.status)).toEqual(["fail"]);
    expect(executed).toEqual([{ from: "squats", to: "lunges" }]);
  });

  it("approvals as a function decides by the call's toolName, input and callId; a decision that is neither is an EvalOptionsError and ends the run", async () => {
    const model = await swapper();
    const agent = approvalCoach("eval-approval-policy", model.baseURL);
    const seen: Array<{ toolName: string; input: unknown; callId: string }> = [];
    const policy = (call: { toolName: string; input: unknown; callId: string }) => {
      seen.push(call);
      const to = (call.input as { to: string }).to;
      return to === "lunges" ? "approve" : to === "burpees" ? "reject" : ("maybe" as never);
    };
    const cases = [
      { name: "lunges", input: "Swap squats for lunges" },
      { name: "burpees", input: "Swap squats for burpees" },
      { name: "planks", input: "Swap squats for planks" },
    ];
    const report = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.eval({
        cases,
        scorers: [ai.eval.requiredToolCalled({ tools: ["update_plan"] })],
        approvals: policy,
        client: harness.client,
        taskQueue,
      }),
    );
    await model.close();
    const run = (name: string) => report.runs.find((r) => r.case === name)!;
    expect(run("lunges")).toMatchObject({ status: "completed", approvals: [{ outcome: "approved", by: "eval" }] });
    expect(run("burpees")).toMatchObject({ status: "completed", approvals: [{ outcome: "rejected", by: "eval" }] });
    expect(run("planks")).toMatchObject({
      status: "infrastructure-error",
      error: { name: "EvalOptionsError", message: expect.stringContaining('returned "maybe"') },
    });
    expect((await harness.client.workflow.getHandle(run("planks").workflowId).describe()).status.name).toBe(
      "TERMINATED",
    );
    expect(
      seen.map((c) => c.input).sort((a, b) => String((a as { to: string }).to).localeCompare((b as { to: string }).to)),
    ).toEqual([
      { from: "squats", to: "burpees" },
      { from: "squats", to: "lunges" },
      { from: "squats", to: "planks" },
    ]);
    for (const call of seen)
      expect(call).toEqual({ toolName: "update_plan", input: expect.any(Object), callId: expect.any(String) });
  });
});

describe("eval options", () => {
  const agent = ai.agent({ name: "options", model: ai.openai("gpt-test") });
  const cases = [{ name: "a", input: "hi" }];
  const scorers = [requiredToolCalled];
  it.each([
    ["cases", { cases: [], scorers }],
    ["cases[1].name", { cases: [...cases, { name: "a", input: "again" }], scorers }],
    ["cases[0].input", { cases: [{ name: "a", input: "  " }], scorers }],
    ["scorers", { cases, scorers: [] }],
    ["scorers[0]", { cases, scorers: [() => ({ pass: true })] }],
    ["scorers", { cases, scorers: [requiredToolCalled, requiredToolCalled] }],
    ["trials", { cases, scorers, trials: 0 }],
    ["concurrency", { cases, scorers, concurrency: 1.5 }],
    ["timeout", { cases, scorers, timeout: -1 }],
    ["approvals", { cases, scorers, approvals: "maybe" }],
  ])("a bad %s throws EvalOptionsError naming it, before any run starts", async (field, options) => {
    const error = await agent.eval(options as never).catch((e: unknown) => e);
    expect(EvalOptionsError.isInstance(error)).toBe(true);
    expect((error as EvalOptionsError).field).toBe(field);
  });
});
