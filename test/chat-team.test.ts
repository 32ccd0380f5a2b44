/**
 * Issue 41, item 2: the chat a team builds on. createChatHandler on a real dev server and
 * scripted model servers, driven through the AI SDK's own DefaultChatTransport: the run's context
 * from the request (C9), the caller's chats (C9), regenerate() (C9), a stopped answer kept with
 * its text (C3), and file parts that reach the model as files (C4).
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { setTimeout as sleep } from "node:timers/promises";
import type { UIMessage, UIMessageChunk } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, createChatHandler, type ChatHandler, type ChatSummary } from "../src/index.js";
import { startScriptedAnthropic, startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";
import { chatRequest, readAnswer, transportFor, userMessage } from "./support/chat-helpers.js";
import { replaysAndKeeps } from "./support/history-helpers.js";
import { API } from "./support/chat-helpers.js";
import { DurableChatTransport, type WatchedAnswer } from "../src/ui/index.js";

/** An answer that takes a few seconds to stream (8 characters a chunk, 4 chunks a second). */
const STORY =
  "Once upon a time, there was a coach who planned every leg day with care, and every athlete thanked her. The end.";

let harness: Harness;
let model: ScriptedModel;
let answers = 0;
beforeAll(async () => {
  harness = await connectHarness();
  model = await startScriptedModel(async (request) => {
    const messages = request.body.messages;
    const last = messages.at(-1)!;
    const text = JSON.stringify(messages.findLast((m) => m.role === "user")?.content ?? "");
    if (text.includes("Who am I") && last.role === "user") return { toolCalls: [{ name: "whoami", arguments: {} }] };
    if (text.includes("Who am I")) return `You are ${String(last.content)}.`;
    if (text.includes("Tell me a long story")) return { text: STORY, chunksPerSecond: 4 };
    answers += 1;
    return `answer ${answers}`;
  });
});
afterAll(async () => {
  await model?.close();
  await harness.close();
});

const UserContext = z.object({ userId: z.string(), plan: z.enum(["free", "pro"]) });
const whoami = ai.tool({
  name: "whoami",
  input: z.object({}),
  execute: async (_input, { context }) => {
    const user = context as z.infer<typeof UserContext>;
    return `${user.userId} on ${user.plan}`;
  },
});
const agent = (name: string) =>
  ai.agent({
    name,
    model: ai.openai("gpt-test", { baseURL: model.baseURL }),
    tools: [whoami],
    contextSchema: UserContext,
  });

/** A handler whose authorize reads the x-user header (a cookie in an app), and whose context is the signed-in user. */
function handlerFor(chatAgent: ReturnType<typeof agent>, taskQueue: string): ChatHandler {
  return createChatHandler({
    agent: chatAgent,
    client: harness.client,
    taskQueue,
    authorize: ({ request }) => {
      const user = request.headers.get("x-user");
      return user && user !== "nobody" ? { by: user } : false;
    },
    context: ({ request, by }) => ({ userId: by, plan: request.headers.get("x-plan") ?? "free" }),
  });
}

const textOf = (message: UIMessage | undefined) =>
  (message?.parts ?? []).flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
const newChat = () => `chat-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

async function send(handler: ChatHandler, user: string, chatId: string, messages: UIMessage[], headers = {}) {
  const stream = await transportFor(handler, { "x-user": user, ...headers }).sendMessages({
    chatId,
    messages,
    trigger: "submit-message",
    messageId: undefined,
    abortSignal: undefined,
  });
  return readAnswer(stream);
}

async function history(handler: ChatHandler, user: string, chatId: string): Promise<UIMessage[]> {
  const response = await handler.GET(chatRequest(`${encodeURIComponent(chatId)}/stream?messages`, user));
  expect(response.status).toBe(200);
  return (await response.json()) as UIMessage[];
}

async function chatsOf(handler: ChatHandler, user: string): Promise<ChatSummary[]> {
  const response = await handler.GET(chatRequest("", user));
  expect(response.status).toBe(200);
  return (await response.json()) as ChatSummary[];
}

/** Polls `check` until it holds (Temporal's visibility follows a run's changes a moment later). */
async function eventually(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await sleep(50);
}

const post = (handler: ChatHandler, user: string, body: unknown) =>
  handler.POST(chatRequest("", user, { method: "POST", body: JSON.stringify(body) }));

describe("the chat a team builds on", () => {
  it("C9: context({ request, by, chatId }) gives the run's context: the chat's tools see the signed-in user", async () => {
    const coach = agent("team-context");
    await withWorker(harness, [coach], async ({ taskQueue }) => {
      const handler = handlerFor(coach, taskQueue);
      const answer = await send(handler, "alice", newChat(), [userMessage("Who am I?")], { "x-plan": "pro" });
      expect(textOf(answer.message)).toBe('You are "alice on pro".');
    });
  });

  it("C9: GET {api} lists the caller's chats only (id, first words, updated), newest message first; a refused caller gets 404", async () => {
    const coach = agent("team-list");
    await withWorker(harness, [coach], async ({ taskQueue }) => {
      const handler = handlerFor(coach, taskQueue);
      const [first, second, bobs] = [newChat(), newChat(), newChat()];
      await send(handler, "alice", first, [userMessage("Plan my leg day for the week, with squats and lunges")]);
      await send(handler, "alice", second, [userMessage("What should I eat?")]);
      await send(handler, "bob", bobs, [userMessage("Bob's secret plan")]);
      await eventually(async () => (await chatsOf(handler, "alice")).length === 2);
      const listed = await chatsOf(handler, "alice");
      expect(listed.map((c) => [c.id, c.firstWords, c.open])).toEqual([
        [second, "What should I eat?", true],
        [first, "Plan my leg day for the week, with squats and lunges", true],
      ]);
      expect(Date.parse(listed[0]!.updated)).toBeGreaterThanOrEqual(Date.parse(listed[1]!.updated));
      // A new message in the first chat moves it to the top; its first words stay those of its first message.
      await send(handler, "alice", first, [userMessage("And on Friday?")]);
      await eventually(async () => (await chatsOf(handler, "alice"))[0]?.id === first);
      expect((await chatsOf(handler, "alice"))[0]!.firstWords).toBe(
        "Plan my leg day for the week, with squats and lunges",
      );
      await eventually(async () => (await chatsOf(handler, "bob")).length === 1);
      expect((await chatsOf(handler, "bob")).map((c) => c.id)).toEqual([bobs]);
      expect((await handler.GET(chatRequest("", "nobody"))).status).toBe(404);
    });
  });

  it("C9: regenerate() answers the last user message again as a new message of the session; the history shows the new answer in the old one's place", async () => {
    const coach = agent("team-regenerate");
    await withWorker(harness, [coach], async ({ taskQueue }) => {
      const handler = handlerFor(coach, taskQueue);
      const chatId = newChat();
      const hello = userMessage("Hello");
      const first = await send(handler, "alice", chatId, [hello]);
      const firstText = textOf(first.message);
      // useChat's regenerate(): the messages up to the answer, trigger "regenerate-message", the answer's id.
      const stream = await transportFor(handler, { "x-user": "alice" }).sendMessages({
        chatId,
        messages: [hello],
        trigger: "regenerate-message",
        messageId: `${chatId}-m0`,
        abortSignal: undefined,
      });
      const again = await readAnswer(stream);
      expect(again.chunks[0]).toEqual({ type: "start", messageId: `${chatId}-m1` });
      expect(textOf(again.message)).not.toBe(firstText);
      expect(textOf(again.message)).toMatch(/^answer \d+$/);
      expect(model.requests.at(-1)!.body.messages.map((m) => `${m.role} ${String(m.content)}`)).toEqual([
        "user Hello",
        `assistant ${firstText}`,
        "user Hello",
      ]);
      const messages = await history(handler, "alice", chatId);
      expect(messages.map((m) => `${m.id} ${m.role} ${textOf(m)}`)).toEqual([
        `${chatId}-u1 user Hello`,
        `${chatId}-m1 assistant ${textOf(again.message)}`,
      ]);
      // Only the last answer can be regenerated; a chat with no answer has none.
      const stale = await post(handler, "alice", {
        id: chatId,
        messages: [hello],
        trigger: "regenerate-message",
        messageId: `${chatId}-m0`,
      });
      expect(stale.status).toBe(400);
      expect(await stale.json()).toMatchObject({ error: { name: "ChatRequestError", message: /last answer/ } });
      const none = await post(handler, "alice", { id: newChat(), messages: [hello], trigger: "regenerate-message" });
      expect(none.status).toBe(404);
    });
  });

  it("C3: a stopped answer stays in the history with the text it had, marked stopped; the model's next call sees it before the next question; the history replays", async () => {
    const coach = agent("team-stopped");
    await withWorker(harness, [coach], async ({ taskQueue }) => {
      const handler = handlerFor(coach, taskQueue);
      const chatId = newChat();
      const stream = await transportFor(handler, { "x-user": "alice" }).sendMessages({
        chatId,
        messages: [userMessage("Tell me a long story")],
        trigger: "submit-message",
        messageId: undefined,
        abortSignal: undefined,
      });
      // The person presses Stop once the first words are shown.
      const reader = stream.getReader();
      const chunks: UIMessageChunk[] = [];
      const shown = () => chunks.flatMap((c) => (c.type === "text-delta" ? [c.delta] : [])).join("");
      while (shown().length < 16) chunks.push((await reader.read()).value!);
      const stopped = await handler.DELETE(chatRequest(`${chatId}/stream`, "alice", { method: "DELETE" }));
      expect(await stopped.json()).toEqual({ stopped: 0 });
      for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
      // The watching stream ends with the stop's data part and finish "interrupted".
      expect(chunks).toContainEqual({
        type: "data-stopped",
        id: "stopped",
        data: { stopReason: "cancelled", detail: expect.any(String) },
      });
      expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "interrupted" });
      // After a reload: the answer with its text (what was shown, and what the model streamed until the stop), marked stopped.
      const [, answer] = await history(handler, "alice", chatId);
      expect(answer).toMatchObject({ id: `${chatId}-m0`, role: "assistant" });
      const kept = textOf(answer);
      expect(kept.startsWith(shown())).toBe(true);
      expect(STORY.startsWith(kept) && kept.length < STORY.length).toBe(true);
      expect(answer!.parts.at(-1)).toEqual({
        type: "data-stopped",
        data: { stopReason: "cancelled", detail: "stopped" },
      });
      // The next question: the model sees the stopped answer before it, not two user messages in a row.
      await send(handler, "alice", chatId, [userMessage("Go on")]);
      expect(model.requests.at(-1)!.body.messages.map((m) => `${m.role} ${String(m.content)}`)).toEqual([
        "user Tell me a long story",
        `assistant ${kept}`,
        "user Go on",
      ]);
      await replaysAndKeeps(
        { workflow: harness.client.workflow.getHandle(`team-stopped-session-${chatId}`) },
        "chat-stopped-answer",
      );
    });
  });

  it("C5: a message sent while another is answered waits its turn, and its POST streams its own answer when it comes; the history has each user message before its answer", async () => {
    const coach = agent("team-queued");
    await withWorker(harness, [coach], async ({ taskQueue }) => {
      const handler = handlerFor(coach, taskQueue);
      const chatId = newChat();
      const story = await transportFor(handler, { "x-user": "alice" }).sendMessages({
        chatId,
        messages: [userMessage("Tell me a long story")],
        trigger: "submit-message",
        messageId: undefined,
        abortSignal: undefined,
      });
      const reader = story.getReader();
      expect((await reader.read()).value).toEqual({ type: "start", messageId: `${chatId}-m0` });
      // Tab B sends while tab A's answer streams: its POST waits for its turn, then streams its own answer.
      const second = send(handler, "alice", chatId, [userMessage("Hello from tab B")]);
      const first: UIMessageChunk[] = [];
      for (let next = await reader.read(); !next.done; next = await reader.read()) first.push(next.value);
      expect(first.flatMap((c) => (c.type === "text-delta" ? [c.delta] : [])).join("")).toBe(STORY);
      const answer = await second;
      expect(answer.chunks[0]).toEqual({ type: "start", messageId: `${chatId}-m1` });
      expect(textOf(answer.message)).toMatch(/^answer \d+$/);
      expect(model.requests.at(-1)!.body.messages.map((m) => `${m.role} ${String(m.content)}`)).toEqual([
        "user Tell me a long story",
        `assistant ${STORY}`,
        "user Hello from tab B",
      ]);
      const messages = await history(handler, "alice", chatId);
      expect(messages.map((m) => `${m.id} ${textOf(m)}`)).toEqual([
        `${chatId}-u0 Tell me a long story`,
        `${chatId}-m0 ${STORY}`,
        `${chatId}-u1 Hello from tab B`,
        `${chatId}-m1 ${textOf(answer.message)}`,
      ]);
    });
  });

  it("C6: a watching tab is told the user message a new answer asks (sent from another tab), from the chat's history, before the answer is handed over", async () => {
    const coach = agent("team-watch");
    await withWorker(harness, [coach], async ({ taskQueue }) => {
      const handler = handlerFor(coach, taskQueue);
      const chatId = newChat();
      // Tab A: DurableChatTransport over the handler, as the page's fetch reaches the routes.
      const tabA = new DurableChatTransport({
        api: API,
        headers: { "x-user": "alice" },
        watchIntervalMs: 100,
        fetch: (async (url: string | URL | Request, init?: RequestInit) => {
          const request = new Request(new URL(String(url), API), init);
          return handler[request.method as "POST" | "GET" | "DELETE"](request);
        }) as typeof fetch,
      });
      const own = await tabA.sendMessages({
        chatId,
        messages: [userMessage("Hello from tab A")],
        trigger: "submit-message",
        messageId: undefined,
        abortSignal: undefined,
      });
      await readAnswer(own);
      const told: WatchedAnswer[] = [];
      const unwatch = tabA.watch(chatId, (answer) => told.push(answer));
      try {
        // Tab B sends; tab A's watcher finds its answer in flight (a few seconds long), with the user message that asked it.
        const fromB = send(handler, "alice", chatId, [userMessage("Tell me a long story, tab B")]);
        await eventually(() => told.length > 0);
        expect(told[0]!.asked).toMatchObject({
          id: `${chatId}-u1`,
          role: "user",
          parts: [{ type: "text", text: "Tell me a long story, tab B" }],
        });
        await fromB;
        const handed = await tabA.reconnectToStream({ chatId });
        const answer = await readAnswer(handed!);
        expect(answer.chunks[0]).toEqual({ type: "start", messageId: `${chatId}-m1` });
      } finally {
        unwatch();
      }
    });
  });

  it("C4: a message's images and PDFs reach the model as files (Chat Completions: image_url and file parts) and come back in the history; a type the model is not sent is a 400 that names it", async () => {
    const coach = agent("team-files");
    const png = "data:image/png;base64,iVBORw0KGgo=";
    const pdf = "data:application/pdf;base64,JVBERi0xLjQK";
    const withFiles: UIMessage = {
      id: "client-1",
      role: "user",
      parts: [
        { type: "text", text: "What is in these?" },
        { type: "file", mediaType: "image/png", url: png, filename: "squat.png" },
        { type: "file", mediaType: "application/pdf", url: pdf, filename: "plan.pdf" },
      ],
    };
    await withWorker(harness, [coach], async ({ taskQueue }) => {
      const handler = handlerFor(coach, taskQueue);
      const chatId = newChat();
      const answer = await send(handler, "alice", chatId, [withFiles]);
      expect(textOf(answer.message)).toMatch(/^answer \d+$/);
      expect(model.requests.at(-1)!.body.messages[0]).toEqual({
        role: "user",
        content: [
          { type: "text", text: "What is in these?" },
          { type: "image_url", image_url: { url: png } },
          { type: "file", file: { file_data: pdf, filename: "plan.pdf" } },
        ],
      });
      const [asked] = await history(handler, "alice", chatId);
      expect(asked!.parts).toEqual([
        { type: "text", text: "What is in these?" },
        { type: "file", mediaType: "image/png", url: png },
        { type: "file", mediaType: "application/pdf", url: pdf, filename: "plan.pdf" },
      ]);
      // A file alone is a message; a type the model is not sent is refused by name, before anything reaches the session.
      const zip = await post(handler, "alice", {
        id: newChat(),
        trigger: "submit-message",
        messages: [
          {
            id: "z",
            role: "user",
            parts: [
              {
                type: "file",
                mediaType: "application/zip",
                url: "data:application/zip;base64,UEs=",
                filename: "plans.zip",
              },
            ],
          },
        ],
      });
      expect(zip.status).toBe(400);
      expect(await zip.json()).toMatchObject({
        error: { name: "ChatRequestError", message: expect.stringMatching(/"plans\.zip" is of type application\/zip/) },
      });
    });
  });

  it("C4: through an AI SDK provider, the files are the provider's own file parts (Claude: image and document blocks)", async () => {
    const server = await startScriptedAnthropic(["A squat, and a plan."]);
    try {
      const claude = ai.agent({
        name: "team-files-claude",
        model: ai.model(createAnthropic({ baseURL: server.baseURL, apiKey: "sk-ant-test" })("claude-sonnet-4-5")),
      });
      await withWorker(harness, [claude], async ({ taskQueue }) => {
        const handler = createChatHandler({
          agent: claude,
          client: harness.client,
          taskQueue,
          authorize: () => ({ by: "alice" }),
        });
        const answer = await send(handler, "alice", newChat(), [
          {
            id: "client-1",
            role: "user",
            parts: [
              { type: "text", text: "What is in these?" },
              { type: "file", mediaType: "image/png", url: "data:image/png;base64,iVBORw0KGgo=" },
              { type: "file", mediaType: "application/pdf", url: "data:application/pdf;base64,JVBERi0xLjQK" },
            ],
          },
        ]);
        expect(textOf(answer.message)).toBe("A squat, and a plan.");
        const content = (server.requests[0]!.body.messages[0] as { content: Array<Record<string, unknown>> }).content;
        expect(
          content.map((block) => [block.type, (block.source as { media_type?: string } | undefined)?.media_type]),
        ).toEqual([
          ["text", undefined],
          ["image", "image/png"],
          ["document", "application/pdf"],
        ]);
      });
    } finally {
      await server.close();
    }
  });
});
