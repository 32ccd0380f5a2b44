/**
 * The capacity benchmark's chat: a session of three user messages, each answered in two trips (a
 * streamed text with a `record_step` call, then a streamed text alone), watched by one UI message
 * stream per message, as a chat page reads it. The scripted model is a function of the request,
 * so one server answers any number of chats at once.
 */
import { randomUUID } from "node:crypto";
import type { Client } from "@temporalio/client";
import { ai, type Agent } from "../../src/index.js";
import type { ScriptedRequest, ScriptedTurn } from "../../src/testing/index.js";
import { MODEL_ID, recordStep, stepInput, TOOL_DESCRIPTION, TOOL_NAME } from "../scenario.js";

/** The agent's name, on the worker and the client. */
export const CHAT_AGENT = "bench-chat";
/** User messages per chat, and trips per message. */
export const MESSAGES_PER_CHAT = 3;
export const TRIPS_PER_MESSAGE = 2;
/** Chunks per streamed answer, their size in characters, and the pace the model sends them at. */
export const CHUNKS = 100;
export const CHUNK_SIZE = 4;
export const CHUNKS_PER_SECOND = 200;

const answer = (trip: number) =>
  Array.from({ length: CHUNKS }, (_v, i) => `${trip}${String(i).padStart(3, "0")}`).join("");

/** A tool call with text on a message's first trip, text alone on its second. */
export function chatScript(request: ScriptedRequest): ScriptedTurn {
  const messages = request.body.messages;
  const lastUser = messages.map((m) => m.role).lastIndexOf("user");
  const toolResults = messages.slice(lastUser).filter((m) => m.role === "tool").length;
  if (toolResults >= TRIPS_PER_MESSAGE - 1) return answer(TRIPS_PER_MESSAGE);
  return { text: answer(toolResults + 1), toolCalls: [{ name: TOOL_NAME, arguments: { step: toolResults + 1 } }] };
}

/** The agent the worker serves. */
export function chatAgent(baseURL: string, name = CHAT_AGENT): Agent {
  return ai.agent({
    name,
    model: ai.openai(MODEL_ID, { baseURL, apiKey: "bench" }),
    tools: [ai.tool({ name: TOOL_NAME, description: TOOL_DESCRIPTION, input: stepInput, execute: recordStep })],
  });
}

/** Reads a response body to its end; the bytes read. */
async function drain(response: Response): Promise<number> {
  const reader = response.body!.getReader();
  let bytes = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) bytes += read.value.byteLength;
  return bytes;
}

/** One chat, start to end; its session's workflow id. */
export async function runChat(client: Client, taskQueue: string): Promise<string> {
  const agent = ai.agent({ name: CHAT_AGENT, model: ai.openai(MODEL_ID) }); // the client's view: the name is enough
  const session = agent.session(`capacity-${randomUUID()}`, { client, taskQueue, streamText: true });
  for (let i = 1; i <= MESSAGES_PER_CHAT; i++) {
    const message = await session.start(`Message ${i}: record a step.`);
    await drain(message.toUIMessageStreamResponse());
    const result = await message.result();
    if (result.reply !== answer(TRIPS_PER_MESSAGE))
      throw new Error(`message ${i} answered ${result.reply.slice(0, 40)}`);
  }
  await session.end();
  return session.workflowId;
}
