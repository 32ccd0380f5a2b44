import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../src/index.js";
import { defaultActHint } from "../src/contract/hints.js";
import { reprompts, runContract, swap, transcript, updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const OFFER = "Want me to swap that?";
const actWhenAsked = { intents: [/\b(swap|replace|change|add|remove)\b/i], requiredTools: ["update_plan"] };

describe("options.actWhenAsked", () => {
  it("When the user's input matches an intent and the model answers without calling a required tool, the agent sends one more turn with a hint instead of accepting the answer.", async () => {
    const calls: unknown[] = [];
    const { result } = await runContract(harness, { tools: [updatePlanTool(calls)], actWhenAsked }, [
      OFFER,
      swap(),
      "Done: squats are now lunges.",
    ]);
    expect(result.reply).toBe("Done: squats are now lunges.");
    expect(calls).toEqual([{ from: "squats", to: "lunges" }]);
    expect(reprompts(result)).toEqual([
      { trip: 1, type: "reprompt", kind: "act-when-asked", text: defaultActHint(["update_plan"], "any") },
    ]);
  });

  it("The model's first answer stays in the history, followed by the hint as a user message.", async () => {
    const { result, requests } = await runContract(harness, { tools: [updatePlanTool()], actWhenAsked }, [
      OFFER,
      swap(),
      "Done.",
    ]);
    const hint = defaultActHint(["update_plan"], "any");
    expect(transcript(result.messages).slice(0, 3)).toEqual([
      "user: Swap squats for lunges",
      `assistant: ${OFFER}`,
      `user: ${hint}`,
    ]);
    expect(requests[1]!.body.messages.slice(-2)).toEqual([
      expect.objectContaining({ role: "assistant", content: OFFER }),
      { role: "user", content: hint },
    ]);
  });

  it("Any match makes the turn an action request: a case-insensitive substring, a RegExp, or (input) => boolean.", async () => {
    for (const intents of [["SWAP"], [/swap/i], [(input: string) => input.startsWith("Swap")]]) {
      const { result } = await runContract(
        harness,
        { tools: [updatePlanTool()], actWhenAsked: { intents, requiredTools: ["update_plan"] } },
        [OFFER, swap(), "Done."],
      );
      expect(reprompts(result)).toHaveLength(1);
    }
  });

  it("An input that matches no intent is not an action request: the answer is accepted.", async () => {
    const { result, requests } = await runContract(
      harness,
      { tools: [updatePlanTool()], actWhenAsked },
      ["Squats work your legs."],
      "What do squats do?",
    );
    expect(requests).toHaveLength(1);
    expect(result.reply).toBe("Squats work your legs.");
    expect(reprompts(result)).toEqual([]);
  });

  it("requiredTools: a call that failed does not count.", async () => {
    const failing = ai.tool({
      name: "update_plan",
      input: z.object({ from: z.string(), to: z.string() }),
      execute: async (_i, ctx) => {
        if (ctx.trip === 1) throw new Error("db down");
        return { ok: true };
      },
    });
    const { result } = await runContract(harness, { tools: [failing], actWhenAsked }, [
      swap(),
      "Done, swapped!",
      swap(),
      "Done.",
    ]);
    expect(result.toolCalls.map((c) => c.status)).toEqual(["failed", "ok"]);
    expect(reprompts(result)).toEqual([expect.objectContaining({ trip: 2, kind: "act-when-asked" })]);
  });

  it("requiredTools: a refused call does not count either.", async () => {
    const { result } = await runContract(harness, { tools: [updatePlanTool()], actWhenAsked }, [
      swap("moonwalks"),
      "Done!",
      swap(),
      "Done.",
    ]);
    expect(result.toolCalls.map((c) => c.status)).toEqual(["refused", "ok"]);
    expect(reprompts(result).map((r) => r.kind)).toEqual(["act-when-asked"]);
  });

  it('require: "all" of requiredTools must have succeeded; "any" (default) is satisfied by one.', async () => {
    const log = ai.tool({ name: "log_change", input: z.object({}), execute: async () => ({ ok: true }) });
    const tools = [updatePlanTool(), log];
    const both = { ...actWhenAsked, requiredTools: ["update_plan", "log_change"] };
    const all = await runContract(harness, { tools, actWhenAsked: { ...both, require: "all" } }, [
      swap(),
      "Done.",
      { toolCalls: [{ name: "log_change" }] },
      "Logged.",
    ]);
    expect(reprompts(all.result)).toEqual([
      expect.objectContaining({ kind: "act-when-asked", text: defaultActHint(["update_plan", "log_change"], "all") }),
    ]);
    const any = await runContract(harness, { tools, actWhenAsked: both }, [swap(), "Done."]);
    expect(reprompts(any.result)).toEqual([]);
  });

  it("hint: the re-prompt text, or ({ input, reply, requiredTools, tripIndex }) => string.", async () => {
    const text = await runContract(
      harness,
      { tools: [updatePlanTool()], actWhenAsked: { ...actWhenAsked, hint: "Just do it." } },
      [OFFER, swap(), "Done."],
    );
    expect(reprompts(text.result)[0]!.text).toBe("Just do it.");
    const seen: unknown[] = [];
    const hint = (args: { input: string; reply: string; requiredTools: string[]; tripIndex: number }) => {
      seen.push(args);
      return `Call ${args.requiredTools[0]} for: ${args.input}`;
    };
    const fn = await runContract(
      harness,
      { tools: [updatePlanTool()], actWhenAsked: { ...actWhenAsked, hint } },
      ["Hello!", OFFER, swap(), "Done."],
      "Hi! Swap squats",
    );
    expect(seen).toEqual([{ input: "Hi! Swap squats", reply: "Hello!", requiredTools: ["update_plan"], tripIndex: 0 }]);
    expect(reprompts(fn.result)[0]!.text).toBe("Call update_plan for: Hi! Swap squats");
  });

  it("maxReprompts: re-prompts per run. Default 1.", async () => {
    const once = await runContract(harness, { tools: [updatePlanTool()], actWhenAsked }, [OFFER, OFFER]);
    expect(reprompts(once.result)).toHaveLength(1);
    expect(once.result.reply).toBe(OFFER);
    const twice = await runContract(
      harness,
      { tools: [updatePlanTool()], actWhenAsked: { ...actWhenAsked, maxReprompts: 2 } },
      [OFFER, OFFER, OFFER],
    );
    expect(reprompts(twice.result).map((r) => r.trip)).toEqual([1, 2]);
    expect(twice.requests).toHaveLength(3);
  });

  it("The re-prompt uses one of the run's maxTrips; with none left it does not happen.", async () => {
    const { result, requests } = await runContract(harness, { tools: [updatePlanTool()], actWhenAsked, maxTrips: 2 }, [
      swap("moonwalks"),
      OFFER,
    ]);
    expect(requests).toHaveLength(2);
    expect(reprompts(result)).toEqual([]);
    expect(result.stopReason).toBe("answered");
    expect(result.trace).toContainEqual({
      trip: 2,
      type: "reprompt.withheld",
      kind: "act-when-asked",
      detail: "no trips left (maxTrips 2)",
    });
  });

  it("Off by default: an agent without the option accepts the offer as the answer.", async () => {
    const { result, requests } = await runContract(harness, { tools: [updatePlanTool()] }, [OFFER]);
    expect(requests).toHaveLength(1);
    expect(result.reply).toBe(OFFER);
  });

  it("The seed's example runs as written.", async () => {
    const updatePlan = updatePlanTool();
    const model = ai.openai("gpt-test");
    const coach = ai.agent({
      model,
      tools: [updatePlan],
      actWhenAsked: {
        intents: [/\b(swap|replace|change|add|remove)\b/i],
        requiredTools: ["update_plan"],
      },
    });
    expect(coach.name).toBe("agent");
    expect(coach.options.actWhenAsked?.requiredTools).toEqual(["update_plan"]);
  });
});
