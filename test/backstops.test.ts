import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ai, type Backstop, type BackstopContext, type BackstopTurn } from "../src/index.js";
import { defaultActHint, defaultRefusalHint } from "../src/contract/hints.js";
import { reprompts, runContract, swap, transcript, updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const backstopTrace = (result: { trace: Array<{ type: string }> }) => result.trace.filter((e) => e.type === "backstop");

describe("options.backstops", () => {
  it("The seed's example runs as written: a before backstop captures the injury once and its prompt is added to the conversation as a user message.", async () => {
    const saved: string[] = [];
    const saveInjury = async (input: string) => void saved.push(input);
    const model = ai.openai("gpt-test");
    const agent = ai.agent({
      model,
      backstops: [
        {
          name: "injury-capture",
          phase: "before", // default "after"
          detect: (turn) => /\b(hurt|injur|pain)\b/i.test(turn.input),
          run: async ({ input, state }) => {
            await saveInjury(input);
            return { prompt: "The user reported an injury. Acknowledge it first." };
          },
        },
      ],
    });
    const { result, requests } = await runContract(
      harness,
      { ...agent.options, name: "injury-coach" },
      ["Sorry about your knee. Let's rest it."],
      "My knee hurt during squats",
    );
    expect(saved).toEqual(["My knee hurt during squats"]);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.body.messages).toEqual([
      { role: "user", content: "My knee hurt during squats" },
      { role: "user", content: "The user reported an injury. Acknowledge it first." },
    ]);
    expect(backstopTrace(result)).toEqual([
      { trip: 0, type: "backstop", name: "injury-capture", phase: "before", outcome: "detected" },
      {
        trip: 0,
        type: "backstop",
        name: "injury-capture",
        phase: "before",
        outcome: "prompted",
        detail: "The user reported an injury. Acknowledge it first.",
      },
    ]);
  });

  it('"before" runs once, before the first model call; a backstop that does not detect does not run.', async () => {
    const runs: string[] = [];
    const before: Backstop = {
      name: "b",
      phase: "before",
      detect: (t) => t.input.includes("knee"),
      run: () => void runs.push("b"),
    };
    await runContract(harness, { backstops: [before] }, ["Hi."], "Hello");
    expect(runs).toEqual([]);
    const { result } = await runContract(
      harness,
      { tools: [updatePlanTool()], backstops: [before] },
      [swap(), "Done."],
      "knee",
    );
    expect(runs).toEqual(["b"]);
    expect(result.trips).toBe(2);
  });

  it('"after" runs after each model answer that would end the run. It sees the reply, and a returned prompt re-prompts the model.', async () => {
    const replies: Array<string | undefined> = [];
    const after: Backstop = {
      name: "no-medical-advice",
      detect: (turn) => (replies.push(turn.reply), /diagnos/i.test(turn.reply ?? "")),
      run: () => ({ prompt: "Do not diagnose. Suggest seeing a physio." }),
    };
    const { result, requests } = await runContract(harness, { tools: [updatePlanTool()], backstops: [after] }, [
      swap(),
      "I diagnose a sprain.",
      "Please see a physio.",
    ]);
    // not called after the tool-call answer (it would not end the run); called after each answer that would
    expect(replies).toEqual(["I diagnose a sprain."]);
    expect(requests[2]!.body.messages.at(-1)).toEqual({
      role: "user",
      content: "Do not diagnose. Suggest seeing a physio.",
    });
    expect(reprompts(result)).toEqual([
      {
        trip: 2,
        type: "reprompt",
        kind: "backstop",
        text: "Do not diagnose. Suggest seeing a physio.",
        source: "no-medical-advice",
      },
    ]);
    expect(result.reply).toBe("Please see a physio.");
  });

  it("detect(turn) receives { phase, runId, input, reply?, tripIndex, toolCalls, messages }; run(context) receives the same plus agent and a state object shared by the run's backstops.", async () => {
    const turns: BackstopTurn[] = [];
    const contexts: BackstopContext[] = [];
    const first: Backstop = {
      name: "first",
      detect: (t) => (turns.push(t), true),
      run: (ctx) => {
        contexts.push(structuredClone(ctx));
        ctx.state.count = 1;
        ctx.state.by = ["first"];
      },
    };
    const second: Backstop = {
      name: "second",
      detect: () => true,
      run: (ctx) => {
        contexts.push(structuredClone(ctx));
        (ctx.state.by as string[]).push("second");
      },
    };
    const { result } = await runContract(harness, { tools: [updatePlanTool()], backstops: [first, second] }, [
      swap(),
      "Done.",
    ]);
    expect(Object.keys(turns[0]!).sort()).toEqual([
      "input",
      "messages",
      "phase",
      "reply",
      "runId",
      "toolCalls",
      "tripIndex",
    ]);
    expect(turns[0]).toMatchObject({
      phase: "after",
      runId: result.runId,
      input: "Swap squats for lunges",
      reply: "Done.",
      tripIndex: 1,
    });
    expect(turns[0]!.toolCalls).toMatchObject([{ name: "update_plan", status: "ok" }]);
    expect(turns[0]!.messages).toHaveLength(4);
    expect(contexts[0]).toMatchObject({
      agent: "contract-agent",
      state: {},
      reply: "Done.",
      idempotencyKey: `${result.workflowId}/backstop/first`,
    });
    expect(contexts[1]).toMatchObject({
      state: { count: 1, by: ["first"] },
      idempotencyKey: `${result.workflowId}/backstop/second`,
    });
  });

  it("Each backstop runs at most once per run, so a re-prompted answer does not repeat a side effect.", async () => {
    const effects: string[] = [];
    const always: Backstop = {
      name: "always",
      detect: () => true,
      run: () => (effects.push("ran"), { prompt: "Check again." }),
    };
    const { result } = await runContract(harness, { backstops: [always] }, ["First.", "Second."]);
    expect(effects).toEqual(["ran"]);
    expect(reprompts(result)).toHaveLength(1);
    expect(result.reply).toBe("Second.");
  });

  it("An error in detect or run is logged and ignored; it never fails the run.", async () => {
    const ran: string[] = [];
    const badDetect: Backstop = {
      name: "bad-detect",
      detect: () => {
        throw new Error("detect exploded");
      },
      run: () => void ran.push("bad-detect"),
    };
    const badRun: Backstop = {
      name: "bad-run",
      detect: () => true,
      run: () => {
        throw new Error("run exploded");
      },
    };
    const good: Backstop = { name: "good", detect: () => true, run: () => (ran.push("good"), { prompt: "Be kind." }) };
    const { result } = await runContract(harness, { backstops: [badDetect, badRun, good] }, ["Hi.", "Hi, kindly."]);
    expect(ran).toEqual(["good"]);
    expect(result.stopReason).toBe("answered");
    expect(result.reply).toBe("Hi, kindly.");
    expect(backstopTrace(result)).toEqual([
      {
        trip: 1,
        type: "backstop",
        name: "bad-detect",
        phase: "after",
        outcome: "error",
        detail: "detect threw: detect exploded",
      },
      { trip: 1, type: "backstop", name: "bad-run", phase: "after", outcome: "detected" },
      { trip: 1, type: "backstop", name: "bad-run", phase: "after", outcome: "error", detail: "run exploded" },
      { trip: 1, type: "backstop", name: "good", phase: "after", outcome: "detected" },
      { trip: 1, type: "backstop", name: "good", phase: "after", outcome: "prompted", detail: "Be kind." },
      // a backstop whose detect threw has not run, so it is considered again at the next answer
      {
        trip: 2,
        type: "backstop",
        name: "bad-detect",
        phase: "after",
        outcome: "error",
        detail: "detect threw: detect exploded",
      },
    ]);
  });

  it("If more than one backstop returns a prompt on an answer, their prompts are joined in declaration order into the single re-prompt.", async () => {
    const a: Backstop = { name: "a", detect: () => true, run: () => ({ prompt: "First A." }) };
    const b: Backstop = { name: "b", detect: () => true, run: () => ({ prompt: "Then B." }) };
    const { result, requests } = await runContract(harness, { backstops: [a, b] }, ["Hi.", "OK."]);
    expect(requests).toHaveLength(2);
    expect(reprompts(result)).toEqual([
      { trip: 1, type: "reprompt", kind: "backstop", text: "First A.\n\nThen B.", source: "a, b" },
    ]);
  });
});

describe("When several options fire on the same answer, backstops go first, then the refusal retry, then actWhenAsked; one re-prompt is sent per answer.", () => {
  it("all three firing on one answer: one re-prompt each answer, in that order, each option keeping its budget until it sends", async () => {
    const effects: string[] = [];
    const backstop: Backstop = {
      name: "audit",
      detect: () => true,
      run: () => (effects.push("audit"), { prompt: "Audit note." }),
    };
    const { result, requests } = await runContract(
      harness,
      {
        tools: [updatePlanTool()],
        onToolRefusal: "retry-once-with-hint",
        actWhenAsked: { intents: ["swap"], requiredTools: ["update_plan"] },
        backstops: [backstop],
      },
      [swap("moonwalks"), "Want me to swap it?", "Shall I?", "Really, shall I?", "Final."],
    );
    expect(effects).toEqual(["audit"]);
    expect(reprompts(result).map((r) => [r.trip, r.kind, r.text])).toEqual([
      [2, "backstop", "Audit note."],
      [3, "refusal-retry", defaultRefusalHint("update_plan", "moonwalks is not in the library")],
      [4, "act-when-asked", defaultActHint(["update_plan"], "any")],
    ]);
    expect(requests).toHaveLength(5);
    expect(transcript(result.messages).filter((m) => m.startsWith("user:"))).toHaveLength(4);
    expect(result.reply).toBe("Final.");
  });
});

describe("Seeing what happened", () => {
  it("Each re-prompt, refusal retry and backstop is recorded in the agent trace on the turn that triggered it.", async () => {
    const backstop: Backstop = { name: "audit", detect: (t) => t.tripIndex === 1, run: () => ({ prompt: "Audit." }) };
    const { result } = await runContract(harness, { tools: [updatePlanTool()], backstops: [backstop] }, [
      swap(),
      "Hello.",
      "Bye.",
    ]);
    // trip 1 called a tool; trip 2's answer (tripIndex 1) triggered the backstop and its re-prompt
    expect(result.trace.filter((e) => e.type !== "model.answered" && e.type !== "tool.finished")).toEqual([
      { trip: 2, type: "backstop", name: "audit", phase: "after", outcome: "detected" },
      { trip: 2, type: "backstop", name: "audit", phase: "after", outcome: "prompted", detail: "Audit." },
      { trip: 2, type: "reprompt", kind: "backstop", text: "Audit.", source: "audit" },
      {
        trip: 3,
        type: "run.stopped",
        stopReason: "answered",
        detail: "the model answered without tool calls on trip 3",
      },
    ]);
  });
});
