import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { UIMessageChunk } from "ai";
import {
  ai,
  InvalidStreamCursorError,
  RunEventStream,
  uiMessageStream,
  uiMessageStreamResponse,
  type StreamedRunEvent,
} from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { swap, updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { approvalRequested } from "./support/approval-helpers.js";
import { ask, byAgent, testAgent } from "./support/subagent-helpers.js";
import { chunkTypes, messageOf, readUIStream, textsOf } from "./support/ui-stream-helpers.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const ANSWER = "Lunges are in, and moonwalks are not in the library, so squats stay out.";

describe("handle.toUIMessageStreamResponse", () => {
  it("carries text in several deltas, tool input and output parts, a refused tool, steps and the finish, read by the AI SDK's parser", async () => {
    const model = await startScriptedModel(
      [
        {
          text: "Let me swap them.",
          toolCalls: [
            { name: "update_plan", arguments: { from: "squats", to: "lunges" } },
            { name: "update_plan", arguments: { from: "squats", to: "moonwalks" } },
          ],
        },
        ANSWER,
      ],
      { chunksPerSecond: 20, chunkSize: 6, usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
    );
    const agent = ai.agent({
      name: "ui-text-tools",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [updatePlanTool()],
    });
    const { read, result } = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Swap squats for lunges", {
        client: harness.client,
        taskQueue,
        streamText: true,
      });
      const response = handle.toUIMessageStreamResponse();
      expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
      expect(response.headers.get("content-type")).toBe("text/event-stream");
      return { read: await readUIStream(response), result: await handle.result() };
    });
    await model.close();
    expect(read.done).toBe(true);
    expect(read.chunks[0]).toEqual({ type: "start", messageId: result.workflowId });
    expect(read.chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    expect(read.chunks.filter((c) => c.type === "text-delta").length).toBeGreaterThan(3);
    expect(chunkTypes(read.chunks)).toEqual([
      "start",
      "start-step",
      "text-start",
      "text-delta",
      "text-end",
      "data-usage",
      "tool-input-available",
      "tool-input-available",
      "tool-output-available",
      "tool-output-error",
      "finish-step",
      "start-step",
      "text-start",
      "text-delta",
      "text-end",
      "data-usage",
      "data-stopped",
      "finish-step",
      "finish",
    ]);
    const [first, second] = result.toolCalls;
    const message = await messageOf(read.chunks);
    expect(message.id).toBe(result.workflowId);
    expect(textsOf(message)).toEqual(["Let me swap them.", ANSWER]);
    const tools = message.parts.filter((p) => p.type === "tool-update_plan");
    expect(tools).toMatchObject([
      {
        toolCallId: first!.id,
        state: "output-available",
        input: { from: "squats", to: "lunges" },
        output: { ok: true },
      },
      {
        toolCallId: second!.id,
        state: "output-error",
        input: { from: "squats", to: "moonwalks" },
        errorText: "refused: moonwalks is not in the library",
      },
    ]);
    expect(message.parts.filter((p) => p.type === "step-start")).toHaveLength(2);
    expect(message.parts.find((p) => p.type === "data-stopped")).toMatchObject({
      data: { stopReason: "answered" },
    });
    expect(message.parts.find((p) => p.type === "data-usage")).toMatchObject({
      data: { modelCalls: 2, inputTokens: 20, outputTokens: 10, totalTokens: 30 },
    });
    // Every chunk but start has an SSE id, and the ids grow.
    expect(read.ids[0]).toBeUndefined();
    expect(read.ids.slice(1).every((id) => typeof id === "string" && id.length > 0)).toBe(true);
  });
});

const deltaCount = (chunks: UIMessageChunk[]) => chunks.filter((c) => c.type === "text-delta").length;

describe("approvals", () => {
  it("a call waiting for approval ends the stream with its finish while the run waits; the answer goes on in the same message after the decision", async () => {
    const executed: unknown[] = [];
    const model = await startScriptedModel([
      { text: "Swapping.", toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] },
      "Done: lunges are in.",
    ]);
    const agent = ai.agent({
      name: "ui-approval",
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
    await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Swap squats for lunges", {
        client: harness.client,
        taskQueue,
        streamText: true,
      });
      const first = await readUIStream(handle.toUIMessageStreamResponse({ endAtApproval: true }));
      expect(first.done).toBe(true);
      expect(first.chunks.slice(-3)).toMatchObject([
        { type: "tool-approval-request", toolCallId: expect.any(String) },
        { type: "finish-step" },
        { type: "finish", finishReason: "tool-calls" },
      ]);
      const asked = await messageOf(first.chunks);
      const callId = (first.chunks.at(-3) as { toolCallId: string }).toolCallId;
      expect(asked.parts.find((p) => p.type === "tool-update_plan")).toMatchObject({
        toolCallId: callId,
        state: "approval-requested",
        input: { from: "squats", to: "lunges" },
        approval: { id: callId },
      });
      // The run still waits, and nothing ran.
      expect((await handle.pendingApprovals()).map((a) => a.callId)).toEqual([callId]);
      expect(executed).toEqual([]);

      const request = await approvalRequested(handle);
      await handle.approve(callId, { by: "ana" });
      // The answer goes on after the request, in the same message.
      const rest = await readUIStream(
        uiMessageStreamResponse(
          uiMessageStream(harness.client, handle.workflowId, {
            fromOffset: request.offset + 1,
            messageId: asked.id,
            endAtApproval: true,
          }),
        ),
      );
      expect(rest.chunks[0]).toEqual({ type: "start", messageId: asked.id });
      const done = await messageOf(rest.chunks, asked);
      expect(done.id).toBe(asked.id);
      expect(textsOf(done)).toEqual(["Swapping.", "Done: lunges are in."]);
      expect(done.parts.find((p) => p.type === "tool-update_plan")).toMatchObject({
        state: "output-available",
        output: { ok: true },
        approval: { id: callId, approved: true },
      });
      expect(rest.chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
      // A replay of the whole answer once decided: the request shows, and the stream goes on to the end.
      const replay = await readUIStream(handle.toUIMessageStreamResponse({ endAtApproval: true }));
      expect(replay.chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
      expect(await messageOf(replay.chunks)).toMatchObject({ id: asked.id, parts: done.parts });
    });
    expect(executed).toEqual([{ from: "squats", to: "lunges" }]);
    await model.close();
  });
});

describe("the contract's events", () => {
  it("an actWhenAsked re-prompt: the first answer's text stays, a data-reprompt marker says why, then the tool call and the second answer in the same message", async () => {
    const model = await startScriptedModel(["Want me to swap it?", swap(), "Done: lunges are in."]);
    const agent = ai.agent({
      name: "ui-reprompt",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [updatePlanTool()],
      actWhenAsked: { intents: ["swap"], requiredTools: ["update_plan"] },
    });
    const read = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Swap squats for lunges", {
        client: harness.client,
        taskQueue,
        streamText: true,
      });
      return readUIStream(handle.toUIMessageStreamResponse());
    });
    await model.close();
    const message = await messageOf(read.chunks);
    const shown = message.parts.filter((p) => p.type !== "step-start" && p.type !== "data-stopped");
    expect(shown.map((p) => p.type)).toEqual(["text", "data-reprompt", "tool-update_plan", "text"]);
    expect(shown).toMatchObject([
      { type: "text", text: "Want me to swap it?" },
      {
        type: "data-reprompt",
        data: { kind: "act-when-asked", trip: 1, text: expect.stringContaining("update_plan") },
      },
      { type: "tool-update_plan", state: "output-available", output: { ok: true } },
      { type: "text", text: "Done: lunges are in." },
    ]);
    expect(read.chunks.filter((c) => c.type === "start")).toHaveLength(1);
  });

  it("a retried model call: reset-step removes the failed attempt's text, data-retry marks it, and only the retried attempt's text shows", async () => {
    const model = await startScriptedModel(
      ({ index }) =>
        index === 0
          ? { text: "This first answer is lost halfway through.", cutAfterChunks: 3, cutBy: "close" }
          : "The second attempt's answer, whole.",
      { chunkSize: 6, chunksPerSecond: 10 },
    );
    const agent = ai.agent({ name: "ui-retry", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const read = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Hi", { client: harness.client, taskQueue, streamText: true });
      return readUIStream(handle.toUIMessageStreamResponse());
    });
    await model.close();
    const types = chunkTypes(read.chunks);
    expect(types.indexOf("reset-step")).toBeGreaterThan(types.indexOf("start-step"));
    expect(types.indexOf("data-retry")).toBe(types.indexOf("reset-step") + 1);
    const message = await messageOf(read.chunks);
    expect(textsOf(message)).toEqual(["The second attempt's answer, whole."]);
    expect(message.parts.find((p) => p.type === "data-retry")).toMatchObject({ data: { trip: 1, attempt: 2 } });
  });

  it("a failed run ends with an error part naming its typed error, then finish", async () => {
    const model = await startScriptedModel([{ status: 401, body: { error: { message: "bad key", type: "auth" } } }]);
    const agent = ai.agent({ name: "ui-failed", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const read = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Hi", { client: harness.client, taskQueue, streamText: true });
      return readUIStream(handle.toUIMessageStreamResponse());
    });
    await model.close();
    expect(read.done).toBe(true);
    expect(read.chunks.slice(-3)).toEqual([
      { type: "error", errorText: expect.stringMatching(/^ModelApiError: .*401/) },
      { type: "finish-step" },
      { type: "finish", finishReason: "error" },
    ]);
  });
});

describe("a session's message", () => {
  it("streams from where the message starts (event offset and conversation index) to its run.stopped, and nothing of the message before", async () => {
    const model = await startScriptedModel([
      "First answer.",
      { text: "Swapping.", toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] },
      "Second answer: lunges are in.",
    ]);
    const agent = ai.agent({
      name: "ui-session",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [updatePlanTool()],
    });
    await withWorker(harness, [agent], async ({ taskQueue }) => {
      const session = agent.session(`s-${Date.now()}`, { client: harness.client, taskQueue, streamText: true });
      await session.send("Hello");
      // Where the next message starts: after the first message's run.stopped, and after its conversation.
      const first = await collectUntil(
        new RunEventStream(harness.client, session.workflowId, () => Promise.reject(new Error("a session"))),
        (e) => e.type === "run.stopped",
      );
      const fromOffset = first.at(-1)!.offset + 1;
      const fromMessage = (await session.history()).length;
      const sent = session.send("Swap squats for lunges");
      const stream = uiMessageStream(harness.client, session.workflowId, { fromOffset, fromMessage, messageId: "m2" });
      const read = await readUIStream(uiMessageStreamResponse(stream));
      await sent;
      expect(read.chunks[0]).toEqual({ type: "start", messageId: "m2" });
      expect(read.chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
      const message = await messageOf(read.chunks);
      expect(textsOf(message)).toEqual(["Swapping.", "Second answer: lunges are in."]);
      expect(message.parts.find((p) => p.type === "tool-update_plan")).toMatchObject({
        state: "output-available",
        input: { from: "squats", to: "lunges" },
        output: { ok: true },
      });
      await session.end();
    });
    await model.close();
  });
});

describe("a session message's toUIMessageStreamResponse", () => {
  it("gives the message's answer from its own start, under the session's message id, for a message started while another is answered", async () => {
    const model = await startScriptedModel(["First answer.", "Second answer: lunges are in."]);
    const agent = ai.agent({ name: "ui-session-message", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    await withWorker(harness, [agent], async ({ taskQueue }) => {
      const session = agent.session(`sm-${Date.now()}`, { client: harness.client, taskQueue, streamText: true });
      const first = await session.start("Hello");
      const second = await session.start("Swap squats for lunges"); // queued behind the first
      const read = await readUIStream(second.toUIMessageStreamResponse());
      expect(read.chunks[0]).toEqual({ type: "start", messageId: `${session.workflowId}-m1` });
      expect(read.chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
      expect(textsOf(await messageOf(read.chunks))).toEqual(["Second answer: lunges are in."]);
      expect((await first.result()).reply).toBe("First answer.");
      expect((await second.result()).reply).toBe("Second answer: lunges are in.");
      await session.end();
    });
    await model.close();
  });
});

describe("resuming", () => {
  it("a resume replays the answer in flight from start, with the same message id, then follows live", async () => {
    const model = await startScriptedModel(
      ["A paced answer that takes a while to arrive, chunk by chunk, to the end."],
      {
        chunkSize: 5,
        chunksPerSecond: 15,
      },
    );
    const agent = ai.agent({ name: "ui-replay", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Hi", { client: harness.client, taskQueue, streamText: true });
      let deltas = 0;
      const cut = await readUIStream(
        handle.toUIMessageStreamResponse(),
        (c) => c.type === "text-delta" && ++deltas === 3,
      );
      expect(cut.done).toBe(false);
      const replay = await readUIStream(handle.toUIMessageStreamResponse());
      expect(replay.chunks[0]).toEqual({ type: "start", messageId: handle.workflowId });
      const message = await messageOf(replay.chunks);
      expect(message.id).toBe(handle.workflowId);
      expect(textsOf(message)).toEqual([(await handle.result()).reply]);
    });
    await model.close();
  });

  it("sub-agents' events show nested, and a resume after a chunk mid sub-agent gives nothing twice and nothing missing (UI chunks and run events)", async () => {
    const BILLING = "You were charged twice for March; the second charge is refunded within five days.";
    const model = await startScriptedModel(
      byAgent({
        triage: [
          { text: "Asking billing.", toolCalls: [ask("billing", "Why was I charged twice?")] },
          "Billing says: refunded.",
        ],
        billing: [{ text: BILLING, chunkSize: 6, chunksPerSecond: 12 }],
      }),
    );
    const billing = testAgent("billing", model.baseURL);
    const triage = testAgent("triage", model.baseURL, { tools: [billing.asTool()] });
    await withWorker(harness, [triage], async ({ taskQueue }) => {
      const handle = await triage.start("Why was I charged?", { client: harness.client, taskQueue, streamText: true });
      const midSubAgent = (c: UIMessageChunk) =>
        c.type === "data-subagent" &&
        ((c.data as { parts: { type: string; text?: string }[] }).parts.find((p) => p.type === "text")?.text?.length ??
          0) > 10;
      const cut = await readUIStream(handle.toUIMessageStreamResponse(), midSubAgent);
      expect(cut.done).toBe(false);
      const events = await collectUntil(handle.stream(), (e) => e.workflowId !== undefined && e.type === "text.delta");
      const after = cut.ids.at(-1)!;
      expect(after).toContain("="); // names the sub-agent run's position beside the run's
      const rest = await readUIStream(handle.toUIMessageStreamResponse({ after }));
      const restEvents = await collectUntil(handle.stream({ after: events.at(-1)!.id! }));
      const full = await readUIStream(handle.toUIMessageStreamResponse());
      const fullEvents = await collectUntil(handle.stream());

      // UI chunks: the cut read and the resumed one make the same message as one whole read.
      expect(rest.chunks[0]).toEqual({ type: "start", messageId: handle.workflowId });
      const joined = [...cut.chunks, ...rest.chunks.slice(1)];
      // Sub-agent parts leave out first: a child's last update may come live between two deltas of the parent's next answer.
      const ownChunks = (chunks: UIMessageChunk[]) => chunkTypes(chunks.filter((c) => c.type !== "data-subagent"));
      expect(ownChunks(joined)).toEqual(ownChunks(full.chunks));
      const resumed = await messageOf(joined);
      const whole = await messageOf(full.chunks);
      expect(resumed).toEqual(whole);
      expect(deltaCount(rest.chunks)).toBeGreaterThan(0);
      const nested = whole.parts.filter((p) => p.type === "data-subagent");
      expect(nested).toMatchObject([
        {
          id: expect.stringMatching(/^subagent-trip-1\//),
          data: {
            agent: "billing",
            agents: ["triage", "billing"],
            tool: "billing",
            status: "answered",
            parts: [{ type: "text", text: BILLING }],
          },
        },
      ]);
      expect(textsOf(whole)).toEqual(["Asking billing.", "Billing says: refunded."]);
      expect(whole.parts.find((p) => p.type === "tool-billing")).toMatchObject({ state: "output-available" });

      // Run events: each run's durable events once, in its own order (runs interleave as they come), and its text whole.
      const durable = (list: StreamedRunEvent[]) =>
        list
          .filter((e) => e.type !== "text.delta")
          .map(
            (e) =>
              `${e.workflowId !== undefined && !e.type.startsWith("subagent.") ? e.workflowId : ""}@${e.offset}:${e.type}`,
          )
          .sort();
      expect(durable([...events, ...restEvents])).toEqual(durable(fullEvents));
      const text = (list: StreamedRunEvent[], workflowId?: string) =>
        list.flatMap((e) => (e.type === "text.delta" && e.workflowId === workflowId ? [e.text] : [])).join("");
      const child =
        nested[0]!.type === "data-subagent" ? (nested[0] as { data: { workflowId: string } }).data.workflowId : "";
      expect(text([...events, ...restEvents], child)).toBe(BILLING);
      expect(text([...events, ...restEvents])).toBe(text(fullEvents));
    });
    await model.close();
  });

  it("a cursor this library did not write is an InvalidStreamCursorError", () => {
    for (const bad of ["", "x", "1.2", "1.2.3,=4.5.6", "1.2.3,a=4.5", "a=1.2.3", "1.2.3,a=1.2.3,a=1.2.3"]) {
      expect(() => uiMessageStream(harness.client, "any", { after: bad }), bad).toThrow(InvalidStreamCursorError);
    }
  });
});

/** A stream's events until one `last` accepts (inclusive), or its end. */
async function collectUntil(
  stream: AsyncIterable<StreamedRunEvent>,
  last?: (event: StreamedRunEvent) => boolean,
): Promise<StreamedRunEvent[]> {
  const events: StreamedRunEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    if (last?.(event)) break;
  }
  return events;
}
