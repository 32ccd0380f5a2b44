import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../src/index.js";
import { defaultRefusalHint } from "../src/contract/hints.js";
import { reprompts, runContract, swap, transcript, updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const SORRY = "Sorry, I can't do that.";
const REASON = "moonwalks is not in the library";

describe("options.onToolRefusal", () => {
  it("If the model then answers without calling a tool again, the agent sends one retry prompt that quotes the reason.", async () => {
    const { result, requests } = await runContract(
      harness,
      { tools: [updatePlanTool()], onToolRefusal: "retry-once-with-hint" },
      [swap("moonwalks"), SORRY, swap("lunges"), "Done: lunges."],
    );
    const hint = defaultRefusalHint("update_plan", REASON);
    expect(hint).toContain(REASON);
    expect(reprompts(result)).toEqual([
      { trip: 2, type: "reprompt", kind: "refusal-retry", text: hint, source: "update_plan" },
    ]);
    expect(requests[2]!.body.messages.at(-1)).toEqual({ role: "user", content: hint });
    expect(result.reply).toBe("Done: lunges.");
  });

  it("A call counts as a refusal when its input failed schema validation.", async () => {
    const { result } = await runContract(
      harness,
      { tools: [updatePlanTool()], onToolRefusal: "retry-once-with-hint" },
      [{ toolCalls: [{ name: "update_plan", arguments: { from: "squats" } }] }, SORRY, swap(), "Done."],
    );
    expect(result.toolCalls[0]!.status).toBe("refused");
    expect(reprompts(result)).toEqual([
      expect.objectContaining({ kind: "refusal-retry", text: expect.stringContaining("Invalid input for") }),
    ]);
  });

  it.each([
    [{ refused: true, reason: "no such exercise" }, "no such exercise"],
    [{ ok: false, reason: "r" }, "r"],
    [{ ok: false, error: "e" }, "e"],
    [{ ok: false, message: "m" }, "m"],
  ])(
    "A call counts as a refusal when its result is an object with refused: true or ok: false and a reason, error or message string: %j",
    async (output, reason) => {
      const tool = ai.tool({ name: "update_plan", input: z.object({}), execute: async () => output });
      const { result } = await runContract(harness, { tools: [tool], onToolRefusal: "retry-once-with-hint" }, [
        { toolCalls: [{ name: "update_plan" }] },
        SORRY,
        "Still sorry.",
      ]);
      expect(result.toolCalls[0]).toMatchObject({ status: "refused", reason });
      expect(reprompts(result)[0]!.text).toBe(defaultRefusalHint("update_plan", reason));
    },
  );

  it("ok: false without a reason string is not a refusal.", async () => {
    const tool = ai.tool({ name: "update_plan", input: z.object({}), execute: async () => ({ ok: false }) });
    const { result } = await runContract(harness, { tools: [tool], onToolRefusal: "retry-once-with-hint" }, [
      { toolCalls: [{ name: "update_plan" }] },
      SORRY,
    ]);
    expect(result.toolCalls[0]!.status).toBe("ok");
    expect(reprompts(result)).toEqual([]);
  });

  it("A later successful call of the same tool clears the refusal, so a model that corrects itself gets no extra prompt.", async () => {
    const { result, requests } = await runContract(
      harness,
      { tools: [updatePlanTool()], onToolRefusal: "retry-once-with-hint" },
      [swap("moonwalks"), swap("lunges"), "Done: lunges."],
    );
    expect(requests).toHaveLength(3);
    expect(reprompts(result)).toEqual([]);
    expect(result.toolCalls.map((c) => c.status)).toEqual(["refused", "ok"]);
  });

  it("retries: 2, with a hint function of { tool, reason }.", async () => {
    const options = {
      retries: 2,
      hint: ({ tool, reason }: { tool: string; reason: string }) => `${tool} said: ${reason}. Pick a valid option.`,
    };
    const { result } = await runContract(harness, { tools: [updatePlanTool()], onToolRefusal: options }, [
      swap("moonwalks"),
      SORRY,
      SORRY,
      SORRY,
    ]);
    expect(reprompts(result).map((r) => [r.trip, r.text])).toEqual([
      [2, `update_plan said: ${REASON}. Pick a valid option.`],
      [3, `update_plan said: ${REASON}. Pick a valid option.`],
    ]);
    expect(result.reply).toBe(SORRY);
    expect(result.trips).toBe(4);
  });

  it('"retry-once-with-hint" sends one retry per run.', async () => {
    const { result } = await runContract(
      harness,
      { tools: [updatePlanTool()], onToolRefusal: "retry-once-with-hint" },
      [swap("moonwalks"), SORRY, SORRY],
    );
    expect(reprompts(result)).toHaveLength(1);
    expect(result.trips).toBe(3);
  });

  it("isRefusal: (call) => reason | false marks more results as refusals (the seed's example as written).", async () => {
    const locked = ai.tool({ name: "update_plan", input: z.object({}), execute: async () => "locked" });
    const seen: unknown[] = [];
    const { result } = await runContract(
      harness,
      {
        tools: [locked],
        onToolRefusal: {
          retries: 2, // default 1
          hint: ({ tool, reason }) => `${tool} said: ${reason}. Pick a valid option.`,
          isRefusal: (call) => (seen.push(call), call.output === "locked" ? "plan is locked" : false),
        },
      },
      [{ toolCalls: [{ name: "update_plan" }] }, SORRY, SORRY, "OK."],
    );
    expect(seen).toEqual([{ tool: "update_plan", input: {}, output: "locked" }]);
    expect(result.toolCalls[0]).toMatchObject({ status: "refused", reason: "plan is locked", output: "locked" });
    expect(reprompts(result).map((r) => r.text)).toEqual(
      Array(2).fill("update_plan said: plan is locked. Pick a valid option."),
    );
  });

  it.each([["off" as const], [undefined]])(
    "%s keeps the current behaviour: the refusal is fed back to the model and nothing more happens.",
    async (option) => {
      const { result, requests } = await runContract(harness, { tools: [updatePlanTool()], onToolRefusal: option }, [
        swap("moonwalks"),
        SORRY,
      ]);
      expect(requests).toHaveLength(2);
      expect(JSON.parse(String(requests[1]!.body.messages.at(-1)!.content))).toEqual({ ok: false, reason: REASON });
      expect(transcript(result.messages).at(-1)).toBe(`assistant: ${SORRY}`);
      expect(reprompts(result)).toEqual([]);
    },
  );
});
