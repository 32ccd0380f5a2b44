/**
 * The scripted model's own behaviour that tests and the soak rely on: a stall that resumes
 * (`stallForMs`, or `stallUntil` a promise settles) and the server's count of usage served
 * (`request.usageServed`), through the real `openai` client over HTTP.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startScriptedModel, type ScriptedModel, type ScriptedTurn } from "../src/testing/index.js";

const usage = { prompt_tokens: 7, completion_tokens: 5 };
let release!: () => void;
const released = new Promise<void>((resolve) => (release = resolve));
const turns: ScriptedTurn[] = [
  { text: "stalls, then goes on", usage, stallAfterChunks: 2, stallForMs: 300 },
  { text: "cut before its usage", usage, cutAfterChunks: 2 },
  { text: "whole", usage },
  { text: "not streamed", usage },
  { text: "held until released", usage, stallAfterChunks: 3, stallUntil: released },
];
let model: ScriptedModel;
let client: OpenAI;

beforeAll(async () => {
  model = await startScriptedModel(turns, { chunkSize: 4 });
  client = new OpenAI({ baseURL: model.baseURL, apiKey: "test", maxRetries: 0 });
});
afterAll(() => model.close());

async function streamed(): Promise<{ text: string; chunkTimes: number[]; usage?: OpenAI.CompletionUsage }> {
  const stream = await client.chat.completions.create({
    model: "m",
    messages: [{ role: "user", content: "hi" }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = "";
  const chunkTimes: number[] = [];
  let reported: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    chunkTimes.push(Date.now());
    text += chunk.choices[0]?.delta.content ?? "";
    reported = chunk.usage ?? reported;
  }
  return { text, chunkTimes, usage: reported ?? undefined };
}

it("stallForMs: the stream stops after stallAfterChunks chunks, then sends the rest of the answer; usageServed is set once the usage chunk is written", async () => {
  const { text, chunkTimes, usage: reported } = await streamed();
  expect(text).toBe("stalls, then goes on");
  expect(chunkTimes[2]! - chunkTimes[1]!).toBeGreaterThanOrEqual(250);
  expect(reported).toMatchObject({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
  expect(model.requests[0]!.usageServed).toEqual({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
});

it("usageServed stays unset for a stream cut before its usage chunk, and is set for whole streamed and non-streamed answers", async () => {
  await expect(streamed()).rejects.toThrow();
  await model.requests[1]!.closed;
  expect(model.requests[1]!.usageServed).toBeUndefined();
  expect((await streamed()).text).toBe("whole");
  const completion = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
  expect(completion.choices[0]!.message.content).toBe("not streamed");
  expect(model.requests.slice(2).map((r) => r.usageServed?.total_tokens)).toEqual([12, 12]);
});

it("stallUntil: the stream stops after stallAfterChunks chunks and sends the rest once the promise settles", async () => {
  const stream = await client.chat.completions.create({
    model: "m",
    messages: [{ role: "user", content: "hi" }],
    stream: true,
  });
  const chunks = stream[Symbol.asyncIterator]();
  const read = async () => ((await chunks.next()).value as OpenAI.ChatCompletionChunk).choices[0]?.delta.content;
  expect([await read(), await read(), await read()]).toEqual(["", "held", " unt"]); // the role chunk, then text by 4
  const releasedAt = Date.now();
  release();
  let rest = "";
  for await (const chunk of { [Symbol.asyncIterator]: () => chunks }) rest += chunk.choices[0]?.delta.content ?? "";
  expect(model.requests[4]!.lastChunkAt).toBeGreaterThanOrEqual(releasedAt); // the rest was written after the release
  expect(rest).toBe("il released");
});
