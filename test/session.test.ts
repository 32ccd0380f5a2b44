import { setTimeout as sleep } from "node:timers/promises";
import { Client, Connection } from "@temporalio/client";
import { Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import {
  ai,
  ModelApiError,
  SessionBusyError,
  SessionEndedError,
  SessionOwnerError,
  type StreamedRunEvent,
} from "../src/index.js";
import { startScriptedModel, type ScriptedRequest } from "../src/testing/index.js";
import { reprompts, updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, taskQueue, withWorker, type Harness } from "./support/harness.js";
import { replaysAndKeeps } from "./support/history-helpers.js";

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

  it("a message's own streamText: a session that streams answers a send with streamText false whole, and the next as it does", async () => {
    const model = await startScriptedModel((request) => `echo: ${lastUser(request)}`);
    const agent = ai.agent({ name: "session-stream-text", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    await withWorker(harness, [agent], async ({ taskQueue }) => {
      const session = agent.session(`st-${Date.now()}`, { client: harness.client, taskQueue, streamText: true });
      await session.send("one");
      const whole = await session.send("two", { streamText: false });
      await session.send("three");
      expect(whole.reply).toBe("echo: two");
      // Only the model calls of the messages that stream their text heartbeat it (the activity's input says which).
      const handle = harness.client.workflow.getHandle(session.workflowId);
      const streamed = (await handle.fetchHistory()).events!.flatMap((event) => {
        const scheduled = event.activityTaskScheduledEventAttributes;
        if (scheduled?.activityType?.name !== "model.call") return [];
        const input = JSON.parse(Buffer.from(scheduled.input!.payloads![0]!.data!).toString("utf8")) as {
          streamText?: boolean;
        };
        return [input.streamText === true];
      });
      expect(streamed).toEqual([true, false, true]);
      await session.end();
      await replaysAndKeeps({ workflow: handle }, "session-message-stream-text");
    });
    await model.close();
  });
});

describe("session messages for chats", () => {
  it("start() hands back each message at once; session-turns gives its index, status, stream offset and conversation index; an approval shows as waiting; cancel-message stops the message in flight; a failed message shows as failed on the stream; the session goes on; the history replays", async () => {
    let hung: ScriptedRequest | undefined;
    const model = await startScriptedModel(async (request) => {
      const text = lastUser(request);
      const last = request.body.messages.at(-1)!;
      if (text === "Hello") return "Hi!";
      if (text === "Hang") return ((hung = request), await request.closed, "never");
      if (text === "Break") return { status: 401 };
      if (text === "Refund" && last.role === "user")
        return { toolCalls: [{ name: "refund", arguments: { amount: 5 } }] };
      return "Done.";
    });
    const refund = ai.tool({
      name: "refund",
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      execute: async () => ({ ok: true }),
    });
    const agent = ai.agent({
      name: "session-turns",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [refund],
    });
    await withWorker(harness, [agent], async ({ taskQueue }) => {
      const session = agent.session(`turns-${Date.now()}`, { client: harness.client, taskQueue, owner: "alice" });
      // A send id the caller chose names the message: its handle, the turn the session listed when it took it.
      const hello = await session.start("Hello", { by: "alice", updateId: "hello-1" });
      expect(hello.updateId).toBe("hello-1");
      expect(hello.taken).toMatchObject({ index: 0, updateId: "hello-1" });
      expect(["queued", "answering"]).toContain(hello.taken!.status);
      expect(await hello.result()).toMatchObject({ reply: "Hi!", stopReason: "answered" });
      expect(await hello.turn()).toMatchObject({
        index: 0,
        status: "answered",
        stopReason: "answered",
        fromOffset: 0,
        messagesFrom: 0,
        messagesTo: 2,
      });
      // The owner is recorded in the memo, readable without a worker; the session refuses anyone else.
      expect(await session.describe()).toEqual({ owner: "alice", open: true });
      await expect(session.send("Hi, it's mallory", { by: "mallory" })).rejects.toBeInstanceOf(SessionOwnerError);
      await expect(session.send("Hi, anonymous")).rejects.toBeInstanceOf(SessionOwnerError);

      // A message in flight: another with ifIdle is refused; cancel-message stops it; its events end with run.stopped "cancelled".
      const hang = await session.start("Hang", { by: "alice" });
      const started = await hang.turn({ started: true });
      expect(started).toMatchObject({ index: 1, status: "answering", messagesFrom: 2 });
      expect(started.fromOffset).toBeGreaterThan(0);
      await eventually(() => hung !== undefined);
      const busy = await session.start("Me too", { by: "alice", ifIdle: true }).catch((e: unknown) => e);
      expect(busy).toBeInstanceOf(SessionBusyError);
      expect(busy).toMatchObject({ index: 1 });
      expect(await session.cancelMessage(0)).toBeNull(); // message 0 is not the one being answered
      expect(await session.cancelMessage()).toBe(1);
      expect(await hang.result()).toMatchObject({ stopReason: "cancelled" });
      expect(await hang.turn()).toMatchObject({ status: "cancelled", stopReason: "cancelled", messagesTo: 3 });
      expect(await session.cancelMessage()).toBeNull();
      const hangEvents = await eventsUntilEnd(session.workflowId, started.fromOffset!);
      expect(hangEvents.at(-1)).toMatchObject({ type: "run.stopped", stopReason: "cancelled" });

      // A failed message: its send rejects with the typed error, its turn and its stream say so, and the session goes on.
      const broken = await session.start("Break", { by: "alice" });
      await expect(broken.result()).rejects.toBeInstanceOf(ModelApiError);
      const failed = await broken.turn();
      expect(failed).toMatchObject({ index: 2, status: "failed", error: { name: "ModelApiError" } });
      const failedEvents = await eventsUntilEnd(session.workflowId, failed.fromOffset!);
      expect(failedEvents.at(-1)).toMatchObject({ type: "message.failed", index: 2, error: { name: "ModelApiError" } });

      // An approval: the message waits for a person; a decision lets it end.
      const refunding = await session.start("Refund", { by: "alice" });
      await eventually(async () => (await refunding.turn()).status === "waiting-for-approval");
      const run = await ai.getRun(session.workflowId, { client: harness.client });
      const [waiting] = await run.pendingApprovals();
      await run.approve(waiting!.callId, { by: "alice" });
      expect(await refunding.result()).toMatchObject({ reply: "Done.", toolCalls: [{ name: "refund", status: "ok" }] });

      const { turns, nextOffset } = await session.turns();
      expect(turns.map((t) => `${t.index} ${t.status}`)).toEqual([
        "0 answered",
        "1 cancelled",
        "2 failed",
        "3 answered",
      ]);
      expect(nextOffset).toBeGreaterThan(turns[3]!.fromOffset!);
      // The conversation stays one a model takes: the next message is answered.
      expect(await session.send("Hello", { by: "alice" })).toMatchObject({ reply: "Hi!" });
      await session.end();
      await replaysAndKeeps({ workflow: harness.client.workflow.getHandle(session.workflowId) }, "session-turns");
    });
    await model.close();
  });

  it("sessions asked for their turns while their first message starts replay: each history in the replayer; a worker started after theirs stopped answers their queries and takes a next message", async () => {
    const model = await startScriptedModel((request) => `echo: ${lastUser(request)}`);
    const agent = ai.agent({ name: "session-replayed", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const queue = taskQueue();
    const sessions = [1, 2, 3].map((n) =>
      agent.session(`r${n}-${Date.now()}`, { client: harness.client, taskQueue: queue }),
    );
    const broken: string[] = [];
    const ask = (session: (typeof sessions)[number]) =>
      session
        .turns()
        .catch((error: Error) => void (/Nondeterminism/.test(error.message) && broken.push(error.message)));
    await withWorker(
      harness,
      [agent],
      () =>
        Promise.all(
          sessions.map(async (session) => {
            // A query that comes with the first workflow task ends it between the agent's description and the first
            // message's start (test/fixtures/histories/session-first-task-split.*): the split a replay must agree with.
            let answered = false;
            const asking = (async () => {
              while (!answered) await ask(session);
            })();
            await session.send("Hello");
            answered = true;
            await asking;
          }),
        ),
      { taskQueue: queue },
    );
    const histories = await Promise.all(
      sessions.map(async (session) => ({
        workflowId: session.workflowId,
        history: await harness.client.workflow.getHandle(session.workflowId).fetchHistory(),
      })),
    );
    for await (const result of Worker.runReplayHistories(
      { workflowBundle: { codePath: inject("workflowBundlePath") }, replayName: "session-replayed" },
      histories,
    ))
      expect(result.error).toBeUndefined();
    // A worker without the runs: their queries replay each whole history, as does the next message's task.
    await withWorker(
      harness,
      [agent],
      async () => {
        for (const session of sessions)
          expect((await session.turns()).turns.map((turn) => turn.status)).toEqual(["answered"]);
        expect(await sessions[0]!.send("Again")).toMatchObject({ reply: "echo: Again" });
      },
      { taskQueue: queue },
    );
    expect(broken).toEqual([]);
    await model.close();
  });
});

/** Polls `check` until it holds. */
async function eventually(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await sleep(20);
}

/** A session message's events, from its offset to the event that ends it (run.stopped or message.failed). */
async function eventsUntilEnd(workflowId: string, fromOffset: number): Promise<StreamedRunEvent[]> {
  const events: StreamedRunEvent[] = [];
  const run = await ai.getRun(workflowId, { client: harness.client });
  for await (const event of run.stream({ fromOffset, subAgents: false })) {
    events.push(event);
    if (event.type === "run.stopped" || event.type === "message.failed") break;
  }
  return events;
}
