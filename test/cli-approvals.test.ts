/**
 * Issue 35: `durable-agent approve`, `reject` and `cancel` against runs on a real worker, through
 * the CLI's `main` in this process (`--address`, before or after the command, names the suite's
 * server). A refused decision prints the typed error and exits 1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type RunHandle } from "../src/index.js";
import { startScriptedModel, type ScriptedModel, type ScriptedTurn } from "../src/testing/index.js";
import { RunEventRenderer } from "../src/cli/format-run.js";
import { runMain } from "./support/cli-helpers.js";
import { swap } from "./support/contract-helpers.js";
import { approvalRequested } from "./support/approval-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

/** A run of an agent whose tool needs approval, waiting on its first call; `decide` gets the run and the call. */
async function withWaitingRun(
  script: ScriptedTurn[],
  decide: (run: {
    handle: RunHandle;
    callId: string;
    address: string;
    executed: unknown[];
    model: ScriptedModel;
  }) => Promise<void>,
): Promise<void> {
  const model = await startScriptedModel(script);
  const executed: unknown[] = [];
  const agent = ai.agent({
    name: "cli-approvals",
    model: ai.openai("gpt-test", { baseURL: model.baseURL }),
    tools: [
      ai.tool({
        name: "update_plan",
        input: z.object({ from: z.string(), to: z.string() }),
        needsApproval: true,
        execute: async (input) => (executed.push(input), { ok: true }),
      }),
    ],
  });
  try {
    await withWorker(
      harness,
      [agent],
      async ({ taskQueue }) => {
        const handle = await agent.start("Swap squats for lunges", { client: harness.client, taskQueue });
        const { callId } = await approvalRequested(handle);
        await decide({ handle, callId, address: harness.address, executed, model });
      },
      { approvals: { canDecide: ({ by }) => by !== "mallory" } },
    );
  } finally {
    await model.close();
  }
}

describe("durable-agent approve", () => {
  it("trace shows the waiting call; approve --by runs it, recorded with who and the note; a refused approver, an unknown call and a late approve exit 1 with the typed error", async () => {
    await withWaitingRun([swap(), "Done: squats are now lunges."], async ({ handle, callId, address, executed }) => {
      const workflowId = handle.workflowId;
      const waiting = await runMain(["trace", workflowId, "--address", address]);
      expect(waiting.code).toBe(0);
      expect(waiting.stdout).toContain(`approval update_plan (${callId}): requested`);

      const refused = await runMain(["approve", workflowId, callId, "--by", "mallory", "--address", address]);
      expect(refused).toMatchObject({ code: 1, stdout: "" });
      expect(refused.stderr).toMatch(/^ApprovalRefusedError: /);
      const unknown = await runMain(["approve", workflowId, "call_nope", "--address", address]);
      expect(unknown).toMatchObject({ code: 1, stdout: "" });
      expect(unknown.stderr).toMatch(
        new RegExp(`^\\w*ApprovalError: No tool call "call_nope" is waiting for approval \\(waiting: .*${callId}`),
      );
      expect(await handle.pendingApprovals()).toMatchObject([{ callId }]);

      const approved = await runMain([
        "--address",
        address,
        "approve",
        workflowId,
        callId,
        "--by",
        "alice",
        "--note",
        "fine by me",
      ]);
      expect(approved).toEqual({
        code: 0,
        stdout: `Approved tool call ${callId} of run ${workflowId} (by alice).`,
        stderr: "",
      });
      const result = await handle.result();
      expect(executed).toEqual([{ from: "squats", to: "lunges" }]);
      expect(result.trace).toContainEqual(
        expect.objectContaining({ type: "approval", callId, outcome: "approved", by: "alice", note: "fine by me" }),
      );

      const late = await runMain(["approve", workflowId, callId, "--address", address]);
      expect(late).toMatchObject({ code: 1, stdout: "" });
      expect(late.stderr).toContain(
        `ApprovalNotWaitingError: Tool call "${callId}" is no longer waiting for approval: it was already approved by alice`,
      );
    });
  });
});

describe("durable-agent reject", () => {
  it("the call does not run, and the model is told the reason as the call's refusal", async () => {
    await withWaitingRun([swap(), "OK, keeping squats."], async ({ handle, callId, address, executed, model }) => {
      const rejected = await runMain([
        "reject",
        handle.workflowId,
        callId,
        "--reason",
        "not before the race",
        "--by",
        "alice",
        "--address",
        address,
      ]);
      expect(rejected).toEqual({
        code: 0,
        stdout: `Rejected tool call ${callId} of run ${handle.workflowId} (by alice): not before the race`,
        stderr: "",
      });
      const result = await handle.result();
      expect(executed).toEqual([]);
      expect(result.toolCalls).toMatchObject([
        { status: "refused", reason: "rejected by a person: not before the race" },
      ]);
      expect(result.trace).toContainEqual(
        expect.objectContaining({ type: "approval", callId, outcome: "rejected", by: "alice" }),
      );
      expect(JSON.parse(String(model.requests[1]!.body.messages.at(-1)!.content))).toEqual({
        refused: true,
        reason: "rejected by a person: not before the race",
      });
    });
  });
});

describe("durable-agent cancel", () => {
  it("ends a waiting run with stopReason cancelled; cancelling it again, or a run that does not exist, exits 1", async () => {
    await withWaitingRun([swap()], async ({ handle, address, executed }) => {
      const cancelled = await runMain(["cancel", handle.workflowId, "--address", address]);
      expect(cancelled).toEqual({
        code: 0,
        stdout: `Cancellation of run ${handle.workflowId} requested: it ends with stopReason "cancelled".`,
        stderr: "",
      });
      const result = await handle.result();
      expect(result.stopReason).toBe("cancelled");
      expect(executed).toEqual([]);
      expect(await runMain(["cancel", handle.workflowId, "--address", address])).toEqual({
        code: 1,
        stdout: "",
        stderr: `Run ${handle.workflowId} has already ended (completed): there is nothing to cancel.`,
      });
    });
    for (const args of [
      ["cancel", "no-such-run"],
      ["approve", "no-such-run", "call_1"],
      ["reject", "no-such-run", "call_1"],
    ]) {
      const { code, stderr } = await runMain([...args, "--address", harness.address]);
      expect({ args, code, stderr }).toEqual({
        args,
        code: 1,
        stderr:
          'No run with workflow id "no-such-run" in namespace "default": check the id (`durable-agent list` shows recent runs) or --namespace.',
      });
    }
  });
});

describe("run's live stream", () => {
  it("prints a call that waits for approval, and its decision, with the call id approve takes", () => {
    const lines: string[] = [];
    const renderer = new RunEventRenderer({ line: (text) => lines.push(text), write: (text) => lines.push(text) });
    renderer.render({
      offset: 4,
      type: "approval",
      trip: 1,
      tool: "update_plan",
      callId: "call_1",
      outcome: "requested",
      input: { from: "squats", to: "lunges" },
    });
    renderer.render({
      offset: 5,
      type: "approval",
      trip: 1,
      tool: "update_plan",
      callId: "call_1",
      outcome: "rejected",
      by: "alice",
      reason: "rejected by a person: not today",
    });
    expect(lines).toEqual([
      "⏸ approval update_plan (call_1): requested",
      "⏸ approval update_plan (call_1): rejected by alice (rejected by a person: not today)",
    ]);
  });
});
