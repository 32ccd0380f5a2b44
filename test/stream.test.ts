import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ai, type Backstop, type StreamedRunEvent } from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { swap, updatePlanTool } from "./support/contract-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

const LONG = "Lunges work the same muscles as squats with less load on the knees. I will swap them.";

/** Collects a stream's events until it ends. */
async function collect<T = StreamedRunEvent>(stream: AsyncIterable<T>, until?: (e: T) => boolean): Promise<T[]> {
  const events: T[] = [];
  for await (const event of stream) {
    events.push(event);
    if (until?.(event)) break;
  }
  return events;
}

/** Durable events are numbered 0, 1, 2, ...; a text delta carries the offset of the durable event before it (resume after it: the answer in flight comes again from its start). */
function expectOffsets(events: StreamedRunEvent[], from = 0) {
  const durable = events.filter((e) => e.type !== "text.delta");
  expect(durable.map((e) => e.offset)).toEqual(durable.map((_e, i) => from + i));
  events.forEach((e, i) => {
    if (e.type === "text.delta")
      expect(e.offset).toBe(events.slice(0, i).findLast((d) => d.type !== "text.delta")?.offset ?? from - 1);
  });
}

const textOf = (events: StreamedRunEvent[], trip: number) =>
  events
    .filter((e): e is Extract<StreamedRunEvent, { type: "text.delta" }> => e.type === "text.delta" && e.trip === trip)
    .map((e) => e.text)
    .join("");

describe("agent.stream", () => {
  it("text deltas arrive before the run finishes: the model's next call waits until the client has seen them", async () => {
    let sawTrip1Delta!: () => void;
    const clientSawDelta = new Promise<void>((resolve) => (sawTrip1Delta = resolve));
    const model = await startScriptedModel(
      async ({ index }) => {
        if (index === 0)
          return { text: LONG, toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] };
        await clientSawDelta; // deadlocks (and the test times out) unless deltas stream before the run ends
        return "Done: lunges are in.";
      },
      { chunksPerSecond: 15 },
    ); // trip 1's text takes about 750 ms: several heartbeats
    const agent = ai.agent({
      name: "stream-order",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [updatePlanTool()],
    });
    const events = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const stream = await agent.stream("Swap squats for lunges", { client: harness.client, taskQueue });
      return collect({
        async *[Symbol.asyncIterator]() {
          for await (const event of stream) {
            if (event.type === "text.delta" && event.trip === 1) sawTrip1Delta();
            yield event;
          }
        },
      });
    });
    expect(events.filter((e) => e.type === "text.delta" && e.trip === 1).length).toBeGreaterThan(1);
    expect(textOf(events, 1)).toBe(LONG);
    expect(textOf(events, 2)).toBe("Done: lunges are in.");
    const types = events.map((e) => e.type).filter((t, i, all) => t !== "text.delta" || all[i - 1] !== "text.delta");
    expect(types).toEqual([
      "trip.started",
      "text.delta",
      "model.answered",
      "tool.started",
      "tool.finished",
      "trip.started",
      "text.delta",
      "model.answered",
      "run.stopped",
      "run.finished",
    ]);
    expectOffsets(events);
    const finished = events.at(-1) as Extract<StreamedRunEvent, { type: "run.finished" }>;
    expect(finished.result.reply).toBe("Done: lunges are in.");
    await model.close();
  });

  it("a closed run's last durable events reach a subscriber that asks while no worker is up (found by the soak)", async () => {
    const model = await startScriptedModel(["All done."]);
    const agent = ai.agent({ name: "stream-closed-tail", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    // The run finishes on one worker, which then stops: reading its events needs a worker to answer the query.
    const { handle, taskQueue } = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Hi", { client: harness.client, taskQueue });
      await handle.result();
      return { handle, taskQueue };
    });
    const read = collect(handle.stream({ subAgents: false }));
    // A worker comes back (as after a restart) while the subscriber is asking.
    const events = await withWorker(harness, [agent], () => read, { taskQueue });
    // Unstreamed, the answer's text is one durable event: every event has its own offset.
    expect(events.map((e) => [e.type, e.offset])).toEqual([
      ["trip.started", 0],
      ["text.delta", 1],
      ["model.answered", 2],
      ["run.stopped", 3],
      ["run.finished", 4],
    ]);
    await model.close();
  });

  it("a closed run whose last durable events cannot be read (no worker) still gives its watchers the final answer's text, once", async () => {
    const model = await startScriptedModel([
      { text: LONG, toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] },
      "Done: lunges are in.",
    ]);
    const agent = ai.agent({
      name: "stream-closed-no-tail",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [updatePlanTool()],
    });
    // The streamed run finishes on one worker, which then stops: no worker answers the closed run's query.
    const handle = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Swap squats for lunges", {
        client: harness.client,
        taskQueue,
        streamText: true,
      });
      await handle.result();
      return handle;
    });
    // The reader gives up on the closed run's last events, and its watchers end with the result.
    const [events, text] = await Promise.all([
      collect(handle.stream({ subAgents: false })),
      collect(handle.stream({ subAgents: false }).textStream()),
    ]);
    const finished = events.at(-1) as Extract<StreamedRunEvent, { type: "run.finished" }>;
    expect(finished.type).toBe("run.finished");
    expect(finished.result.trips).toBe(2);
    // Only the final answer's text is in the result: it comes whole, as that trip's deltas, before run.finished.
    expect(events.slice(0, -1).every((e) => e.type === "text.delta" && e.trip === 2)).toBe(true);
    expect(textOf(events, 2)).toBe("Done: lunges are in.");
    expect(text.join("")).toBe("Done: lunges are in.");
    await model.close();
  }, 120_000); // the server holds each unanswered query about 30 s, and the reader asks for 30 s: about a minute

  it("a reconnect mid-run from the last offset misses nothing and repeats nothing", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const model = await startScriptedModel(async ({ index }) => {
      if (index === 0)
        return { text: LONG, toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] };
      await released;
      return "All done.";
    });
    const agent = ai.agent({
      name: "stream-reconnect",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [updatePlanTool()],
    });
    const { first, rest, control } = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Swap squats for lunges", {
        client: harness.client,
        taskQueue,
        streamText: true,
      });
      const controlEvents = collect(handle.stream());
      const firstPart = await collect(handle.stream(), (e) => e.type === "tool.finished");
      const resumed = collect(handle.stream({ fromOffset: firstPart.at(-1)!.offset + 1 }));
      release();
      return { first: firstPart, rest: await resumed, control: await controlEvents };
    });
    expect(first.at(-1)!.type).toBe("tool.finished");
    expect(rest.length).toBeGreaterThan(3);
    // Durable events: exactly the control subscriber's, in order. Deltas are sampled from the model
    // call's heartbeats, so two subscribers may see an answer split differently: its text is the same.
    const durable = (events: StreamedRunEvent[]) => events.filter((e) => e.type !== "text.delta");
    expect(durable([...first, ...rest])).toEqual(durable(control));
    for (const trip of [1, 2]) expect(textOf([...first, ...rest], trip)).toBe(textOf(control, trip));
    expect(textOf(control, 2)).toBe("All done.");
    expectOffsets(control);
    await model.close();
  });

  it("a run started without streamText still streams each answer's text, whole, and its events", async () => {
    const model = await startScriptedModel(["Hello there."]);
    const agent = ai.agent({ name: "stream-plain", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const text = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Hi", { client: harness.client, taskQueue });
      let all = "";
      for await (const chunk of handle.stream().textStream()) all += chunk;
      return all;
    });
    expect(text).toBe("Hello there.");
    await model.close();
  });

  it("toSSEResponse serves the events as server-sent events with offsets as ids", async () => {
    const model = await startScriptedModel([LONG]);
    const agent = ai.agent({ name: "stream-sse", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const body = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const stream = await agent.stream("Hi", { client: harness.client, taskQueue });
      const response = stream.toSSEResponse();
      expect(response.headers.get("content-type")).toBe("text/event-stream");
      return response.text();
    });
    const frames = body
      .trim()
      .split("\n\n")
      .map((frame) =>
        Object.fromEntries(
          frame.split("\n").map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]),
        ),
      );
    const durable = frames.filter((f) => f.event !== "text.delta");
    expect(durable.map((f) => Number(f.id))).toEqual(durable.map((_f, i) => i));
    expect(frames.at(-1)!.event).toBe("run.finished");
    expect(
      frames
        .filter((f) => f.event === "text.delta")
        .map((f) => JSON.parse(f.data!).text)
        .join(""),
    ).toBe(LONG);
    await model.close();
  });
});

describe("As the seed says: when a re-prompt follows an answer, the first answer's text has already reached the client; the stream then shows the re-prompt and the second answer", () => {
  it("for each kind of re-prompt: backstop, refusal retry, actWhenAsked", async () => {
    const backstop: Backstop = { name: "audit", detect: () => true, run: () => ({ prompt: "Audit note." }) };
    const answers = ["Want me to swap it?", "Shall I?", "Really, shall I?", "Final."];
    const model = await startScriptedModel([swap("moonwalks"), ...answers]);
    const agent = ai.agent({
      name: "stream-reprompts",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [updatePlanTool()],
      onToolRefusal: "retry-once-with-hint",
      actWhenAsked: { intents: ["swap"], requiredTools: ["update_plan"] },
      backstops: [backstop],
    });
    const events = await withWorker(harness, [agent], async ({ taskQueue }) =>
      collect(await agent.stream("Swap squats", { client: harness.client, taskQueue })),
    );
    const reprompts = events.filter((e): e is Extract<StreamedRunEvent, { type: "reprompt" }> => e.type === "reprompt");
    expect(reprompts.map((r) => r.kind)).toEqual(["backstop", "refusal-retry", "act-when-asked"]);
    for (const reprompt of reprompts) {
      const before = events.filter((e) => e.offset < reprompt.offset);
      const after = events.filter((e) => e.offset > reprompt.offset);
      expect(textOf(before, reprompt.trip)).toBe(answers[reprompt.trip - 2]);
      expect(after[0]).toMatchObject({ type: "trip.started", trip: reprompt.trip + 1 });
      expect(textOf(after, reprompt.trip + 1)).toBe(answers[reprompt.trip - 1]);
    }
    await model.close();
  });
});
