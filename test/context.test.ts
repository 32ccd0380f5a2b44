/**
 * Issue 13, item 4: run context and dynamic instructions. `run(input, { context })` is checked on
 * the client with `contextSchema`, recorded once in the workflow input, and given to tools,
 * backstops, hint and isRefusal functions and instructions on the worker; `instructions` may be a
 * function called before each model call.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { ai, ContextValidationError, type ToolContext } from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { swap } from "./support/contract-helpers.js";
import { decodedHistory } from "./support/history-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const UserContext = z.object({ userId: z.string(), tier: z.enum(["free", "pro"]) });
type UserContext = z.infer<typeof UserContext>;

describe("run context", () => {
  it("reaches tools, backstops, hints, isRefusal and instructions on the worker, and is recorded once, in the workflow input", async () => {
    const seen: Array<[string, unknown]> = [];
    const updatePlan = ai.tool({
      name: "update_plan",
      input: z.object({ from: z.string(), to: z.string() }),
      execute: async ({ to }, ctx: ToolContext<UserContext>) => {
        seen.push(["tool", ctx.context.userId]);
        return to === "moonwalks" ? { ok: false, reason: "not in the library" } : { ok: true };
      },
    });
    const model = await startScriptedModel([
      swap("moonwalks"),
      "Sorry.",
      "Want me to swap it?",
      swap("lunges"),
      "Done.",
    ]);
    const agent = ai.agent({
      name: "context-coach",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [updatePlan],
      contextSchema: UserContext,
      instructions: ({ context, trip }) => `Coach user ${(context as UserContext).userId} (trip ${trip}).`,
      onToolRefusal: {
        hint: ({ tool, reason, context }) => (
          seen.push(["refusal hint", (context as UserContext).userId]),
          `${tool}: ${reason}`
        ),
        isRefusal: (call) => (seen.push(["isRefusal", (call.context as UserContext).userId]), false),
      },
      actWhenAsked: {
        intents: ["swap"],
        requiredTools: ["update_plan"],
        hint: ({ context }) => (seen.push(["act hint", (context as UserContext).tier]), "Call it now."),
      },
      backstops: [
        {
          name: "tier",
          phase: "before",
          detect: (turn) => (seen.push(["detect", (turn.context as UserContext).tier]), true),
          run: ({ context }) => (seen.push(["run", (context as UserContext).tier]), undefined),
        },
      ],
    });
    expectTypeOf(agent.run)
      .parameter(1)
      .toMatchTypeOf<{ context?: { userId: string; tier: "free" | "pro" } } | undefined>();
    const marker = "user-7f3c9a";
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("Swap squats for lunges", {
        client: harness.client,
        taskQueue,
        context: { userId: marker, tier: "pro" },
      }),
    );
    expect(result).toMatchObject({ stopReason: "answered", reply: "Done." });
    expect(seen).toEqual([
      ["detect", "pro"],
      ["run", "pro"],
      ["tool", marker], // refused by its { ok: false } result, so isRefusal is not asked
      ["refusal hint", marker],
      ["act hint", "pro"], // built on "Sorry." too (the refusal retry went first), then sent on "Want me to swap it?"
      ["act hint", "pro"],
      ["tool", marker],
      ["isRefusal", marker],
    ]);
    expect(model.requests.map((r) => r.body.messages[0])).toEqual(
      [1, 2, 3, 4, 5].map((trip) => ({ role: "system", content: `Coach user ${marker} (trip ${trip}).` })),
    );
    const history = decodedHistory(await harness.client.workflow.getHandle(result.workflowId).fetchHistory());
    expect(history.split(marker)).toHaveLength(2); // once: the workflow input
    await model.close();
  });

  it("is checked on the client before the run starts: ContextValidationError for a context the schema rejects, or one that is not JSON", async () => {
    const agent = ai.agent({ name: "context-checked", model: ai.openai("gpt-test"), contextSchema: UserContext });
    const error = await agent.start("hi", { context: { userId: 42, tier: "gold" } as never }).catch((e: unknown) => e);
    expect(ContextValidationError.isInstance(error)).toBe(true);
    expect((error as ContextValidationError).issues).toMatch(/expected string, received number → at userId .*tier/);
    const loose = ai.agent({ name: "context-loose", model: ai.openai("gpt-test") });
    await expect(loose.start("hi", { context: { n: 1n } })).rejects.toMatchObject({
      name: "ContextValidationError",
      message: expect.stringContaining("cannot be serialised to JSON"),
    });
    await expect(loose.start("hi", { context: () => 1 })).rejects.toMatchObject({
      name: "ContextValidationError",
      message: expect.stringContaining("a function is not a JSON value"),
    });
  });

  it("sessions take it on session(id, { context })", async () => {
    const users: unknown[] = [];
    const whoami = ai.tool({
      name: "whoami",
      input: z.object({}),
      execute: async (_input, ctx) => (users.push(ctx.context), { ok: true }),
    });
    const model = await startScriptedModel([{ toolCalls: [{ name: "whoami" }] }, "You are you."]);
    const agent = ai.agent({
      name: "context-session",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [whoami],
      contextSchema: UserContext,
    });
    await withWorker(harness, [agent], async ({ taskQueue }) => {
      const session = agent.session(`ctx-${Date.now()}`, {
        client: harness.client,
        taskQueue,
        context: { userId: "u1", tier: "free" },
      });
      await session.send("Who am I?");
      await session.end();
    });
    expect(users).toEqual([{ userId: "u1", tier: "free" }]);
    await model.close();
  });
});

describe("dynamic instructions", () => {
  it("an instructions function that throws fails that model call attempt, with a message naming the instructions; Temporal retries it", async () => {
    const model = await startScriptedModel(["Hello."]);
    let calls = 0;
    const agent = ai.agent({
      name: "instructions-flaky",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      instructions: async ({ input, agent }) => {
        if (++calls === 1) throw new Error("the prompt store is down");
        return `You are ${agent}; the user said ${JSON.stringify(input)}.`;
      },
    });
    const result = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.run("Hi there", { client: harness.client, taskQueue }),
    );
    expect(result.reply).toBe("Hello.");
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.body.messages[0]).toEqual({
      role: "system",
      content: 'You are instructions-flaky; the user said "Hi there".',
    });
    const history = await harness.client.workflow.getHandle(result.workflowId).fetchHistory();
    const retried = history.events!.find(
      (e) => (e.activityTaskStartedEventAttributes?.attempt ?? 0) > 1,
    )!.activityTaskStartedEventAttributes!;
    expect(retried.lastFailure?.message).toBe(
      'The instructions function of agent "instructions-flaky" threw: the prompt store is down',
    );
    expect(retried.lastFailure?.applicationFailureInfo?.type).toBe("InstructionsError");
    await model.close();
  });
});
