/**
 * `DurableChatTransport` (`durable-agent/ui`) against a scripted chat server on loopback that
 * writes the AI SDK's UI message stream (test/support/chat-stream-server.ts), read with the AI
 * SDK's own `readUIMessageStream`: a cut answer resumed with nothing twice and nothing missing, a
 * network down for a while, the retry limit, stop and `DELETE`, the watcher, 204s, and the entry
 * bundled for a browser.
 */
import { gzipSync } from "node:zlib";
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { build } from "esbuild";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DurableChatTransport, type DurableChatTransportOptions } from "../src/ui/index.js";
import { delayBefore } from "../src/ui/backoff.js";
import { startChatStreamServer, writeChunks, type ChatStreamServer } from "./support/chat-stream-server.js";

const CHAT = "chat-1";
const FAST = { maxAttempts: 10, initialDelayMs: 20, maxDelayMs: 80 };
const NEVER = new Promise<void>(() => undefined);
const USER: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "Swap squats for lunges" }] };

/** An answer's chunks, its text cut into `deltas` (a replay may cut them otherwise). */
function answer(deltas = ["Squats ", "become ", "lunges ", "on ", "leg ", "day."]): UIMessageChunk[] {
  return [
    { type: "start", messageId: "m1" },
    { type: "start-step" },
    { type: "text-start", id: "t1" },
    ...deltas.map((delta): UIMessageChunk => ({ type: "text-delta", id: "t1", delta })),
    { type: "text-end", id: "t1" },
    { type: "finish-step" },
    { type: "finish" },
  ];
}
const TEXT = "Squats become lunges on leg day.";

/** Reads a transport's stream two ways at once: its chunks one by one, and the AI SDK's message built from them. */
function consume(stream: ReadableStream<UIMessageChunk>) {
  const [forMessage, forChunks] = stream.tee();
  const chunks: UIMessageChunk[] = [];
  const reader = forChunks.getReader();
  const message = (async () => {
    let last: UIMessage | undefined;
    for await (const m of readUIMessageStream({ stream: forMessage })) last = m;
    return last;
  })();
  return {
    chunks,
    message,
    /** Reads until a chunk matches (or the stream ends); resolves with it. */
    async until(match: (chunk: UIMessageChunk) => boolean): Promise<UIMessageChunk | undefined> {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return undefined;
        chunks.push(value);
        if (match(value)) return value;
      }
    },
    async rest(): Promise<UIMessageChunk[]> {
      await this.until(() => false);
      return chunks;
    },
  };
}

const textOf = (message: UIMessage | undefined) =>
  (message?.parts ?? []).flatMap((p) => (p.type === "text" ? [p.text] : []));

let server: ChatStreamServer;
beforeEach(async () => {
  server = await startChatStreamServer();
});
afterEach(async () => {
  await server.close();
});

function transport(options: Partial<DurableChatTransportOptions> = {}) {
  return new DurableChatTransport({ api: server.api, reconnect: FAST, watchIntervalMs: 20, ...options });
}
const send = (t: DurableChatTransport, abortSignal?: AbortSignal) =>
  t.sendMessages({ chatId: CHAT, messages: [USER], trigger: "submit-message", messageId: undefined, abortSignal });
const deletes = () => server.requests.filter((r) => r.method === "DELETE").length;

describe("a stream cut mid-answer", () => {
  it("resumes from the replay and gives the consumer the whole answer once, though the replay cuts its deltas otherwise", async () => {
    let cut!: () => void;
    server.routes.post = (_, res) => writeChunks(res, answer().slice(0, 5), new Promise((resolve) => (cut = resolve)));
    server.routes.resume = (_, res) => writeChunks(res, answer(["Squats become lunges ", "on leg day."]));
    const read = consume(await send(transport()));
    await read.until((c) => c.type === "text-delta" && c.delta === "become ");
    cut();
    const chunks = await read.rest();
    expect(textOf(await read.message)).toEqual([TEXT]);
    expect(chunks.map((c) => c.type)).toEqual(
      answer(["Squats ", "become ", "lunges ", "on leg day."]).map((c) => c.type),
    );
    expect(chunks.flatMap((c) => (c.type === "text-delta" ? [c.delta] : []))).toEqual([
      "Squats ",
      "become ",
      "lunges ",
      "on leg day.",
    ]);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /api/chat",
      `GET /api/chat/${CHAT}/stream`,
    ]);
  });

  it("a stream that ends cleanly before its finish is resumed too", async () => {
    server.routes.post = (_, res) => writeChunks(res, answer().slice(0, 6));
    server.routes.resume = (_, res) => writeChunks(res, answer());
    const read = consume(await send(transport()));
    await read.rest();
    expect(textOf(await read.message)).toEqual([TEXT]);
    expect(deletes()).toBe(0);
  });

  it("with the network down for a while, retries with backoff until the server is back", async () => {
    server.routes.post = (_, res) => writeChunks(res, answer().slice(0, 5), NEVER);
    server.routes.resume = (_, res) => writeChunks(res, answer());
    const attempts: number[] = [];
    let failed!: () => void;
    const threeFailed = new Promise<void>((resolve) => (failed = resolve));
    const observed: typeof fetch = async (input, init) => {
      if ((init?.method ?? "GET") === "GET") attempts.push(performance.now());
      try {
        return await fetch(input, init);
      } catch (error) {
        if (attempts.length === 3) failed();
        throw error;
      }
    };
    const read = consume(await send(transport({ fetch: observed })));
    await read.until((c) => c.type === "text-delta" && c.delta === "become ");
    await server.refuse(); // cuts the answer's connection, and refuses the next ones
    await threeFailed;
    await server.reopen();
    await read.rest();
    expect(textOf(await read.message)).toEqual([TEXT]);
    expect(attempts.length).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < attempts.length; i++)
      expect(attempts[i]! - attempts[i - 1]!).toBeGreaterThanOrEqual(delayBefore(i + 1, FAST) - 2);
    console.log(
      `network down: ${attempts.length} resume attempts, waits ${attempts
        .slice(1)
        .map((t, i) => Math.round(t - attempts[i]!))
        .join(", ")} ms`,
    );
  });

  it("gives up after the attempts' limit, with an error chunk that says so", async () => {
    server.routes.post = (_, res) => writeChunks(res, answer().slice(0, 5), NEVER);
    const read = consume(await send(transport({ reconnect: { ...FAST, maxAttempts: 3 } })));
    await read.until((c) => c.type === "text-delta");
    await server.refuse();
    const chunks = await read.rest();
    const last = chunks.at(-1);
    expect(last?.type).toBe("error");
    expect(last?.type === "error" && last.errorText).toMatch(/lost and 3 attempts to resume it failed/);
    await read.message.catch(() => undefined);
  });

  it("an answer that finished during the cut (the resume gets 204) is completed from the chat's history, once", async () => {
    // Two steps: a tool call, then the answer's text, cut after its second delta.
    const full: UIMessageChunk[] = [
      { type: "start", messageId: "m1" },
      { type: "start-step" },
      { type: "tool-input-available", toolCallId: "c1", toolName: "swapExercise", input: { from: "squats" } },
      { type: "tool-output-available", toolCallId: "c1", output: { swapped: true } },
      { type: "finish-step" },
      ...answer().slice(1),
    ];
    const history: UIMessage[] = [
      USER,
      {
        id: "m1",
        role: "assistant",
        parts: [
          { type: "step-start" },
          {
            type: "tool-swapExercise",
            toolCallId: "c1",
            state: "output-available",
            input: { from: "squats" },
            output: { swapped: true },
          },
          { type: "step-start" },
          { type: "text", text: TEXT, state: "done" },
        ],
      },
    ];
    let cut!: () => void;
    server.routes.post = (_, res) => writeChunks(res, full.slice(0, 9), new Promise((resolve) => (cut = resolve)));
    server.routes.resume = (_, res) => void res.writeHead(204).end(); // the answer finished during the cut
    server.routes.messages = (_, res) =>
      void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(history));
    const read = consume(await send(transport()));
    await read.until((c) => c.type === "text-delta" && c.delta === "become ");
    cut();
    const chunks = await read.rest();
    const message = await read.message;
    expect(chunks.at(-1)).toEqual({ type: "finish" });
    expect(chunks.some((c) => c.type === "error")).toBe(false);
    expect(message?.id).toBe("m1");
    expect(textOf(message)).toEqual([TEXT]);
    expect(message?.parts).toEqual(history[1]!.parts.map((part) => expect.objectContaining(part)));
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /api/chat",
      `GET /api/chat/${CHAT}/stream`,
      `GET /api/chat/${CHAT}/stream?messages`,
    ]);
    expect(deletes()).toBe(0);
  });

  it("an answer the history does not have either ends the stream with an error chunk that says to reload the messages", async () => {
    server.routes.post = (_, res) => writeChunks(res, answer().slice(0, 5), Promise.resolve());
    server.routes.resume = (_, res) => void res.writeHead(204).end();
    server.routes.messages = (_, res) =>
      void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify([USER]));
    const chunks = await consume(await send(transport())).rest();
    expect(chunks.at(-1)).toEqual({
      type: "error",
      errorText:
        "The answer ended while the connection was down, and the chat's history does not have it: reload the chat's messages to see its end.",
    });
  });
});

describe("reconnectToStream (useChat's resume)", () => {
  it("returns null on 204, so useChat ends cleanly", async () => {
    server.routes.resume = (_, res) => void res.writeHead(204).end();
    expect(await transport().reconnectToStream({ chatId: CHAT })).toBeNull();
    expect(deletes()).toBe(0);
  });

  it("gives the replayed answer whole", async () => {
    server.routes.resume = (_, res) => writeChunks(res, answer());
    const stream = await transport().reconnectToStream({ chatId: CHAT });
    expect(textOf(await consume(stream!).message)).toEqual([TEXT]);
  });
});

describe("stop", () => {
  it("useChat's abort also calls DELETE, once", async () => {
    server.routes.post = (_, res) => writeChunks(res, answer().slice(0, 5), NEVER);
    server.routes.messages = (_, res) => void res.writeHead(200, { "content-type": "application/json" }).end("[]");
    const abort = new AbortController();
    const t = transport();
    const read = consume(await send(t, abort.signal));
    await read.until((c) => c.type === "text-delta");
    const deleted = server.next((r) => r.method === "DELETE");
    abort.abort();
    expect((await deleted).path).toBe(`/api/chat/${CHAT}/stream`);
    await expect(read.rest()).rejects.toThrow();
    expect(await t.loadMessages(CHAT)).toEqual([]);
    expect(deletes()).toBe(1);
  });

  it("a resume that a newer one replaced is not a stop; the newer one's abort is", async () => {
    server.routes.resume = (_, res) => writeChunks(res, answer().slice(0, 5), NEVER);
    server.routes.messages = (_, res) => void res.writeHead(200, { "content-type": "application/json" }).end("[]");
    const t = transport();
    const first = new AbortController();
    await t.reconnectToStream({ chatId: CHAT, abortSignal: first.signal });
    // As useChat does: abort the old resume, then make the new one in the same task.
    first.abort();
    const second = new AbortController();
    const stream = await t.reconnectToStream({ chatId: CHAT, abortSignal: second.signal });
    const read = consume(stream!);
    await read.until((c) => c.type === "text-delta");
    const deleted = server.next((r) => r.method === "DELETE");
    second.abort();
    await deleted;
    await read.rest().catch(() => undefined);
    expect(await t.loadMessages(CHAT)).toEqual([]);
    expect(deletes()).toBe(1);
  });

  it("an answer complete before the abort is not stopped", async () => {
    server.routes.post = (_, res) => writeChunks(res, answer());
    server.routes.messages = (_, res) => void res.writeHead(200, { "content-type": "application/json" }).end("[]");
    const abort = new AbortController();
    const t = transport();
    await consume(await send(t, abort.signal)).rest();
    abort.abort();
    expect(await t.loadMessages(CHAT)).toEqual([]);
    expect(deletes()).toBe(0);
  });
});

describe("watch", () => {
  const approval: UIMessageChunk[] = [
    { type: "start", messageId: "m1" },
    { type: "start-step" },
    { type: "text-start", id: "t1" },
    { type: "text-delta", id: "t1", delta: "I'll swap them." },
    { type: "text-end", id: "t1" },
    {
      type: "tool-input-available",
      toolCallId: "c1",
      toolName: "swapExercise",
      input: { from: "squats", to: "lunges" },
    },
    { type: "tool-approval-request", approvalId: "a1", toolCallId: "c1" },
    { type: "finish-step" },
    { type: "finish" },
  ];
  const afterApproval: UIMessageChunk[] = [
    { type: "start", messageId: "m1" },
    { type: "start-step" },
    { type: "tool-approval-response", approvalId: "a1", approved: true },
    { type: "tool-output-available", toolCallId: "c1", output: { swapped: true } },
    { type: "text-start", id: "t2" },
    { type: "text-delta", id: "t2", delta: "Done: squats are now lunges." },
    { type: "text-end", id: "t2" },
    { type: "finish-step" },
    { type: "finish" },
  ];

  it("shows the answer that started after an approval made elsewhere, with the message's earlier parts", async () => {
    server.routes.post = (_, res) => writeChunks(res, approval);
    // While the call waits, a resume replays the answer up to the approval request.
    server.routes.resume = (_, res) => writeChunks(res, approval);
    const t = transport();
    const waiting = await consume(await send(t)).message;
    expect(waiting?.parts.find((p) => p.type === "tool-swapExercise")).toMatchObject({ state: "approval-requested" });

    let answered = false;
    let onAnswer!: () => void;
    const news = new Promise<void>((resolve) => (onAnswer = resolve));
    const unwatch = t.watch(CHAT, () => {
      answered = true;
      onAnswer();
    });
    const isResume = (r: { method: string; path: string }) => r.method === "GET" && r.path.endsWith("/stream");
    await server.next(isResume);
    await server.next(isResume);
    expect(answered).toBe(false); // a replay of what the chat has is no news

    server.routes.resume = (_, res) => writeChunks(res, afterApproval); // approved in another tab
    await news;
    server.routes.resume = (_, res) => void res.writeHead(204).end();
    const resumed = await t.reconnectToStream({ chatId: CHAT });
    const watched = consume(resumed!);
    const message = await watched.message;
    unwatch();
    expect(message?.id).toBe("m1");
    expect(textOf(message)).toEqual(["I'll swap them.", "Done: squats are now lunges."]);
    expect(message?.parts.find((p) => p.type === "tool-swapExercise")).toMatchObject({
      state: "output-available",
      output: { swapped: true },
    });
    expect(deletes()).toBe(0);
  });
  it("shows the answer after an approval made elsewhere that ended between two looks, as the chat's history has it, and looks it up once", async () => {
    server.routes.post = (_, res) => writeChunks(res, approval);
    server.routes.resume = (_, res) => void res.writeHead(204).end(); // the answer went on and ended before the watcher looked
    const history: UIMessage[] = [
      USER,
      {
        id: "m1",
        role: "assistant",
        parts: [
          { type: "step-start" },
          { type: "text", text: "I'll swap them.", state: "done" },
          {
            type: "tool-swapExercise",
            toolCallId: "c1",
            state: "output-available",
            input: { from: "squats", to: "lunges" },
            output: { swapped: true },
            approval: { id: "a1", approved: true },
          },
          { type: "step-start" },
          { type: "text", text: "Done: squats are now lunges.", state: "done" },
          { type: "data-usage", id: "usage", data: { inputTokens: 9, outputTokens: 7 } },
        ],
      },
    ];
    server.routes.messages = (_, res) =>
      void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(history));
    const t = transport();
    await consume(await send(t)).message;

    let onAnswer!: () => void;
    const news = new Promise<void>((resolve) => (onAnswer = resolve));
    const unwatch = t.watch(CHAT, () => onAnswer());
    await news;
    const message = await consume((await t.reconnectToStream({ chatId: CHAT }))!).message;
    // The watcher goes on looking (204s), and does not look the settled message up again.
    const isResume = (r: { method: string; path: string }) => r.method === "GET" && r.path.endsWith("/stream");
    await server.next(isResume);
    await server.next(isResume);
    unwatch();
    expect(message?.id).toBe("m1");
    expect(message?.parts).toEqual(history[1]!.parts.map((part) => expect.objectContaining(part)));
    expect(server.requests.filter((r) => r.path.includes("?messages"))).toHaveLength(1);
    expect(deletes()).toBe(0);
  });
});

describe("watch on a chat that does not exist yet (issue 41, C7)", () => {
  it("keeps looking through the 404s a new chat's routes answer until its first message, shows the answer that then starts, and tells no one of the 404s; a 403 still ends the watch", async () => {
    const notYet = JSON.stringify({ error: { name: "NotFound", message: "No such chat." } });
    let looks = 0;
    server.routes.resume = (_, res) => {
      looks += 1;
      if (looks <= 5) return void res.writeHead(404, { "content-type": "application/json" }).end(notYet);
      return writeChunks(res, answer()); // another tab sent the chat's first message
    };
    const errors: Error[] = [];
    const t = transport({ onError: (error) => errors.push(error) });
    let onAnswer!: () => void;
    const news = new Promise<void>((resolve) => (onAnswer = resolve));
    const unwatch = t.watch(CHAT, () => onAnswer());
    await news;
    const message = await consume((await t.reconnectToStream({ chatId: CHAT }))!).message;
    unwatch();
    expect(looks).toBeGreaterThan(5);
    expect(textOf(message)).toEqual([TEXT]);
    expect(errors).toEqual([]);

    server.routes.resume = (_, res) => void res.writeHead(403, { "content-type": "application/json" }).end("{}");
    const refused = new Promise<Error>((resolve) => {
      transport({ onError: resolve }).watch(CHAT, () => undefined);
    });
    expect(await refused).toMatchObject({ statusCode: 403 });
  });
});

describe("the durable-agent/ui entry", () => {
  it("bundles for a browser with no Node built-ins; prints its gzipped size", async () => {
    const result = await build({
      entryPoints: ["src/ui/index.ts"],
      bundle: true,
      platform: "browser",
      format: "esm",
      minify: true,
      write: false,
      metafile: true,
      conditions: ["durable-agent-source"],
      logLevel: "silent",
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(
      inputs.filter((path) => path.startsWith("node:") || /^(fs|path|os|crypto|stream|http|net)$/.test(path)),
    ).toEqual([]);
    const code = result.outputFiles[0]!.contents;
    const text = new TextDecoder().decode(code);
    expect(text).not.toMatch(/from\s*"node:|require\("node:|import\("node:/);
    const ours = inputs.filter((path) => path.startsWith("src/ui/"));
    expect(ours).toContain("src/ui/durable-chat-transport.ts");
    expect(inputs.filter((path) => path.startsWith("src/") && !path.startsWith("src/ui/"))).toEqual([]);
    console.log(
      `durable-agent/ui bundled with the AI SDK: ${code.length} bytes minified, ${gzipSync(code).length} bytes gzipped (${inputs.length} modules)`,
    );
  });
});
