import { Client, Connection } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ai, SessionEndedError } from "../src/index.js";
import { startScriptedModel, type ScriptedRequest } from "../src/testing/index.js";
import { reprompts, updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const lastUser = (request: ScriptedRequest) =>
  String(request.body.messages.findLast((m) => m.role === "user")?.content ?? "");

describe("agent.session", () => {
  it("the first send starts the session; each send runs the trip loop with the contract applying per message; history reads the conversation; end closes it", async () => {
    let offered = false;
    const model = await startScriptedModel((request) => {
      const text = lastUser(request);
      if (text === "Hello") return "Hi! How can I help?";
      if (text.startsWith("Swap") && !offered) return ((offered = true), "Want me to swap squats for lunges?");
      if (request.body.messages.at(-1)!.role === "user")
        return { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] };
      return "Done: lunges are in.";
    });
    const agent = ai.agent({
      name: "session-coach",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [updatePlanTool()],
      actWhenAsked: { intents: ["swap"], requiredTools: ["update_plan"] },
    });
    const id = `s-${Date.now()}`;
    await withWorker(harness, [agent], async ({ taskQueue }) => {
      const session = agent.session(id, { client: harness.client, taskQueue });
      expect(session.workflowId).toBe(`session-coach-session-${id}`);
      const first = await session.send("Hello");
      expect(first).toMatchObject({ reply: "Hi! How can I help?", stopReason: "answered", trips: 1, toolCalls: [] });
      expect(reprompts(first)).toEqual([]); // "Hello" is not an action request
      const second = await session.send("Swap squats for lunges");
      expect(second).toMatchObject({ reply: "Done: lunges are in.", trips: 3 });
      expect(reprompts(second).map((r) => r.kind)).toEqual(["act-when-asked"]);
      expect(second.messages[0]).toEqual({ role: "user", content: "Swap squats for lunges" });
      const history = await session.history();
      expect(history.map((m) => m.role)).toEqual([
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
        "tool",
        "assistant",
      ]);
      // the model saw the earlier exchange when answering the second message
      expect(model.requests[1]!.body.messages.slice(0, 2)).toEqual([
        { role: "user", content: "Hello" },
        expect.objectContaining({ role: "assistant", content: "Hi! How can I help?" }),
      ]);
      await session.end();
      await expect(session.send("Still there?")).rejects.toBeInstanceOf(SessionEndedError);
    });
    await model.close();
  });

  it("two clients sending at once are queued in order: each message is followed by its own answer", async () => {
    const model = await startScriptedModel((request) => `echo: ${lastUser(request)}`);
    const agent = ai.agent({ name: "session-echo", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const other = new Client({ connection: await Connection.connect({ address: harness.address }) });
    await withWorker(harness, [agent], async ({ taskQueue }) => {
      const id = `two-${Date.now()}`;
      const a = agent.session(id, { client: harness.client, taskQueue });
      const b = agent.session(id, { client: other, taskQueue });
      const sends = Array.from({ length: 6 }, (_v, i) => (i % 2 ? b : a).send(`message ${i}`));
      const results = await Promise.all(sends);
      results.forEach((result, i) => expect(result.reply).toBe(`echo: message ${i}`));
      const history = await a.history();
      expect(history).toHaveLength(12);
      for (let i = 0; i < 12; i += 2) expect(history[i + 1]!.content).toBe(`echo: ${history[i]!.content}`);
      await a.end();
    });
    await other.connection.close();
    await model.close();
  });
});
