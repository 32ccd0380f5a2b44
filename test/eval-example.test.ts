/**
 * Issue 4, item 7: the example eval suite (examples/evals) under vitest, against the scripted
 * model that offers instead of acting and claims a change without a tool call.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ai, EvalAssertionError, type EvalReport } from "../src/index.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { createCoach } from "../examples/evals/coach-agent.js";
import { cases, scorers } from "../examples/evals/coach-cases.js";
import { misbehavingCoachModel } from "../examples/evals/scripted-coach-model.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
let model: ScriptedModel;
beforeAll(async () => {
  harness = await connectHarness();
  model = await startScriptedModel(misbehavingCoachModel);
});
afterAll(async () => {
  await model.close();
  await harness.close();
});

function evalCoach(contract: boolean): Promise<EvalReport> {
  const coach = createCoach({ contract, model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
  return withWorker(harness, [coach], ({ taskQueue }) =>
    coach.eval({ cases, scorers, client: harness.client, taskQueue }),
  );
}

const statusOf = (report: EvalReport, caseName: string, scorer: string) =>
  report.rows.find((r) => r.case === caseName && r.scorer === scorer)?.status;

describe("the example eval suite (examples/evals)", () => {
  it("with the contract options off, the checks catch the offer and the unbacked claim, and assertPassed throws a readable summary", async () => {
    const report = await evalCoach(false);
    const offer = report.rows.find((r) => r.case === "offers-instead-of-acting" && r.scorer === "requiredToolCalled");
    expect(offer).toMatchObject({
      status: "fail",
      reason: "required tool not called",
      evidence: { toolCalls: [], missingTools: ["update_plan"] },
    });
    const claim = report.rows.find(
      (r) => r.case === "claims-without-tool-call" && r.scorer === "changeClaimedWithoutToolCall",
    );
    expect(claim).toMatchObject({
      status: "fail",
      reason: "change claimed without a tool call",
      evidence: { claim: "Done — push-ups are now burpees.", claimPattern: "done", toolCalls: [] },
    });
    expect(statusOf(report, "offers-instead-of-acting", "changeClaimedWithoutToolCall")).toBe("pass");
    expect(statusOf(report, "acts-at-once", "requiredToolCalled")).toBe("pass");
    expect(statusOf(report, "question", "requiredToolCalled")).toBe("not-applicable");
    expect(report.totals).toMatchObject({ failed: 3, infrastructureErrors: 0, errors: 0 });

    let thrown: unknown;
    try {
      report.assertPassed();
    } catch (error) {
      thrown = error;
    }
    expect(EvalAssertionError.isInstance(thrown)).toBe(true);
    const message = (thrown as Error).message;
    expect(message).toContain('Eval of agent "coach" did not pass: pass rate 72.7% (8 of 11) is below 100%.');
    expect(message).toContain("x offers-instead-of-acting (trial 1) requiredToolCalled: required tool not called");
    expect(message).toContain(
      "x claims-without-tool-call (trial 1) changeClaimedWithoutToolCall: change claimed without a tool call",
    );
    expect(message).toContain('claim: "Done — push-ups are now burpees." (done)');
    expect(message).toContain('reply: "Lunges are a great swap for squats. Want me to swap that?"');
  });

  it("with the contract options on, the same model is re-prompted into acting and the checks pass", async () => {
    const report = await evalCoach(true);
    expect(() => report.assertPassed()).not.toThrow();
    expect(report.totals).toMatchObject({ failed: 0, passed: 11, notApplicable: 1, passRate: 1 });
    const run = report.runs.find((r) => r.case === "offers-instead-of-acting");
    expect(run).toMatchObject({
      status: "completed",
      reply: "Done — squats are now lunges.",
      toolCalls: [expect.objectContaining({ name: "update_plan", status: "ok" })],
    });
  });
});
