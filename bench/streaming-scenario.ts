/**
 * The streaming benchmark's conversation: "Record N steps" makes the scripted model answer with
 * 200 chunks of text on every trip, with a `record_step` call on each trip but the last; the
 * server paces the chunks at 200 a second (a fast model). A function of the request, so one
 * server answers ours and both peers alike.
 */
import { ai, type Agent } from "../src/index.js";
import type { ScriptedRequest, ScriptedTurn } from "../src/testing/index.js";
import { MODEL_ID, recordStep, stepInput, textOf, TOOL_DESCRIPTION, TOOL_NAME } from "./scenario.js";

/** Trips of the streamed conversation. */
export const STREAM_TRIPS = 3;
/** Chunks of text per answer, and the pace the scripted model sends them at (chunks a second). */
export const STREAM_CHUNKS = 200;
export const STREAM_CHUNKS_PER_SECOND = 200;
/** Characters per chunk. */
export const STREAM_CHUNK_SIZE = 4;
/** Our agent's name (the worker's and the client's). */
export const STREAM_AGENT = "bench-stream";

/** The text of trip `trip`'s answer: STREAM_CHUNKS chunks of STREAM_CHUNK_SIZE characters. */
export const streamAnswer = (trip: number) =>
  Array.from({ length: STREAM_CHUNKS }, (_v, i) => `${trip}${String(i % 1000).padStart(3, "0")}`).join("");

/** The scripted model: text and a tool call per trip until the conversation has `trips − 1` tool results, then text alone. */
export function streamScript(request: ScriptedRequest): ScriptedTurn {
  const messages = request.body.messages;
  const trips = Number(
    /Record (\d+) steps/.exec(textOf(messages.find((m) => m.role === "user")?.content))?.[1] ?? STREAM_TRIPS,
  );
  const done = messages.filter((m) => m.role === "tool").length;
  const text = streamAnswer(done + 1);
  return done >= trips - 1 ? text : { text, toolCalls: [{ name: TOOL_NAME, arguments: { step: done + 1 } }] };
}

/** Our agent for the streamed conversation. */
export function streamingAgent(baseURL: string, name = STREAM_AGENT): Agent {
  return ai.agent({
    name,
    model: ai.openai(MODEL_ID, { baseURL, apiKey: "bench" }),
    tools: [ai.tool({ name: TOOL_NAME, description: TOOL_DESCRIPTION, input: stepInput, execute: recordStep })],
  });
}
