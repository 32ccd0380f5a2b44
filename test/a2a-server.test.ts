/**
 * createA2AHandler on a real dev server and the scripted model, over loopback HTTP, driven by
 * `@a2a-js/sdk`'s own client: the card, message/send, message/stream, tasks/resubscribe after a
 * cut connection (every event once, the whole text), tasks/cancel, an approval through
 * input-required, another user's task, and bad input.
 */
import { serve, type ServerType } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import {
  Client as A2AClient,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import type { Message, StreamResponse, Task } from "@a2a-js/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, createA2AHandler, type A2AHandler } from "../src/index.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { startCli } from "./support/cli-helpers.js";
import { cliCoach, cliGreeter } from "./fixtures/cli-agents.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";

const LONG = "The tide comes in twice a day, pulled by the moon and a little by the sun.";
let harness: Harness;
let model: ScriptedModel;
let server: ServerType;
let base = "";
let handler: A2AHandler;
const executed: unknown[] = [];
const released: (() => void)[] = [];

beforeAll(async () => {
  harness = await connectHarness();
  model = await startScriptedModel(async (request) => {
    const messages = request.body.messages;
    const last = messages.at(-1)!;
    const text = String(messages.findLast((m) => m.role === "user")?.content ?? "");
    if (text === "Refund" && last.role === "user") return { toolCalls: [{ name: "refund", arguments: { amount: 5 } }] };
    if (text === "Refund") return "Refund done.";
    // Three pieces, then a pause (the test cuts its connection meanwhile), then the rest.
    if (text === "Long") return { text: LONG, chunkSize: 4, stallAfterChunks: 4, stallForMs: 3000 };
    if (text === "Hang") return (await new Promise<void>((resolve) => released.push(resolve)), "late");
    return `echo: ${text} (${messages.filter((m) => m.role === "user").length})`;
  });
});
afterAll(async () => {
  released.forEach((release) => release());
  await new Promise((resolve) => server?.close(resolve));
  await model?.close();
  await harness.close();
});

const refund = ai.tool({
  name: "refund",
  description: "Refunds an amount",
  input: z.object({ amount: z.number() }),
  needsApproval: true,
  execute: async (input) => (executed.push(input), { ok: true }),
});

/** Serves `handle` on a loopback port with @hono/node-server, as `durable-agent a2a` does. */
async function serveOn(handle: () => A2AHandler): Promise<string> {
  server = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch: (request: Request) => handle()(request), port: 0, hostname: "127.0.0.1" }, () =>
      resolve(started),
    );
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a`;
}

/** A fetch that signs in as `user` (a bearer token in an app). */
const fetchAs =
  (user: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${user}`);
    return fetch(input, { ...init, headers });
  };

/** The SDK's client speaking A2A 0.3 JSON-RPC (`message/send`, ...), as `user`. */
async function clientAs(user: string, path = ""): Promise<A2AClient> {
  const card = await new DefaultAgentCardResolver({ fetchImpl: fetchAs(user) }).resolve(
    `${base}${path}/`,
    ".well-known/agent-card.json",
  );
  return new A2AClient(
    new LegacyJsonRpcTransport({ endpoint: card.supportedInterfaces[0]!.url, fetchImpl: fetchAs(user) }),
    card,
  );
}

const userMessage = (text: string, extra: Partial<Message> = {}): Message => ({
  messageId: crypto.randomUUID(),
  contextId: "",
  taskId: "",
  role: 1,
  parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
  ...extra,
});
const send = (message: Message) => ({ tenant: "", message, configuration: undefined, metadata: undefined });
const textOf = (task: Task) =>
  task.artifacts
    .flatMap((a) => a.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])))
    .join("");
/** The answer's text from artifact updates, as a client assembles it. */
function streamedText(events: StreamResponse[]): string {
  let text = "";
  for (const e of events)
    if (e.payload?.$case === "artifactUpdate") {
      const part = e.payload.value
        .artifact!.parts.map((p) => (p.content?.$case === "text" ? p.content.value : ""))
        .join("");
      text = e.payload.value.append ? text + part : part;
    }
  return text;
}
const states = (events: StreamResponse[]): (number | string)[] =>
  events.flatMap((e): (number | string)[] =>
    e.payload?.$case === "statusUpdate"
      ? [e.payload.value.status!.state as number]
      : e.payload?.$case === "task"
        ? [`task:${e.payload.value.status!.state}`]
        : [],
  );

async function rpc(body: string, user = "alice", headers: Record<string, string> = {}) {
  const response = await fetch(base, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${user}`, ...headers },
    body,
  });
  return {
    status: response.status,
    json: (await response.json()) as { error?: { code: number; message: string }; result?: unknown },
  };
}

describe("createA2AHandler", () => {
  it("serves cards, send, stream, resubscribe after a cut, cancel, an approval via input-required; another user's task is not found; bad input gets JSON-RPC errors", async () => {
    const coach = ai.agent({
      name: "a2a-coach",
      description: "Answers questions about the sea",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [refund],
    });
    const other = ai.agent({ name: "a2a-other", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    await withWorker(harness, [coach, other], async ({ taskQueue }) => {
      base = await serveOn(() => handler);
      handler = createA2AHandler({
        agents: [coach, other],
        client: harness.client,
        taskQueue,
        baseUrl: base,
        authorize: (request) => {
          const user = /^Bearer (\w+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
          return user && user !== "nobody" ? { by: user } : false;
        },
      });

      // The cards: the first agent at the base, each at its path, with its skills.
      const alice = await clientAs("alice");
      const card = await alice.getAgentCard();
      expect(card).toMatchObject({
        name: "a2a-coach",
        description: "Answers questions about the sea",
        capabilities: { streaming: true },
      });
      expect(card.skills.map((s) => s.name)).toEqual(["a2a-coach", "refund"]);
      const raw = (await (await fetch(`${base}/a2a-other/.well-known/agent-card.json`)).json()) as {
        name: string;
        url: string;
      };
      expect(raw).toMatchObject({ name: "a2a-other", url: `${base}/a2a-other`, protocolVersion: "0.3.0" });
      expect((await fetch(`${base}/nope/.well-known/agent-card.json`)).status).toBe(404);

      // message/send: a task that is a durable session message; a follow-up in its context shares the conversation.
      const first = (await alice.sendMessage(send(userMessage("Hello")))) as Task;
      expect(first.status!.state).toBe(3); // completed
      expect(textOf(first)).toBe("echo: Hello (1)");
      const second = (await alice.sendMessage(send(userMessage("Again", { contextId: first.contextId })))) as Task;
      expect(textOf(second)).toBe("echo: Again (2)");
      expect(second.contextId).toBe(first.contextId);
      expect(await alice.getTask({ tenant: "", id: first.id })).toMatchObject({ id: first.id, status: { state: 3 } });

      // Another user: the same task id is not found, and so is a made-up one; a refused caller gets 401.
      const bob = await clientAs("bob");
      await expect(bob.getTask({ tenant: "", id: first.id })).rejects.toThrow(/not found/i);
      await expect(bob.cancelTask({ tenant: "", id: first.id, metadata: undefined })).rejects.toThrow(/not found/i);
      await expect(alice.getTask({ tenant: "", id: `${first.contextId}~99` })).rejects.toThrow(/not found/i);
      expect(
        (await rpc(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: first.id } }), "nobody"))
          .status,
      ).toBe(401);

      // message/stream: the text as it is written; the connection cut mid-answer; tasks/resubscribe replays every event once.
      const cut = new AbortController();
      const seen: StreamResponse[] = [];
      let taskId = "";
      await expect(
        (async () => {
          for await (const event of alice.sendMessageStream(send(userMessage("Long")), { signal: cut.signal })) {
            seen.push(event);
            if (event.payload?.$case === "task") taskId = event.payload.value.id;
            if (event.payload?.$case === "artifactUpdate") cut.abort();
          }
        })(),
      ).rejects.toThrow();
      expect(streamedText(seen).length).toBeGreaterThan(0);
      expect(streamedText(seen).length).toBeLessThan(LONG.length);
      const again: StreamResponse[] = [];
      for await (const event of alice.resubscribeTask({ tenant: "", id: taskId })) again.push(event);
      expect(streamedText(again)).toBe(LONG);
      expect(states(again)).toEqual(["task:2", 2, 3]);
      // Each piece once: the first replaces the artifact's text, every later one appends to it.
      const appends = again.flatMap((e) => (e.payload?.$case === "artifactUpdate" ? [e.payload.value.append] : []));
      expect(appends[0]).toBe(false);
      expect(appends.slice(1).every(Boolean)).toBe(true);
      expect(textOf(await alice.getTask({ tenant: "", id: taskId }))).toBe(LONG);

      // tasks/cancel stops the run.
      const hanging = (await alice.sendMessage({
        ...send(userMessage("Hang")),
        configuration: { returnImmediately: true } as never,
      })) as Task;
      while ((await alice.getTask({ tenant: "", id: hanging.id })).status!.state !== 2)
        await new Promise((r) => setTimeout(r, 50));
      const cancelled = await alice.cancelTask({ tenant: "", id: hanging.id, metadata: undefined });
      expect(cancelled.status!.state).toBe(5);
      await expect(alice.cancelTask({ tenant: "", id: hanging.id, metadata: undefined })).rejects.toThrow(/cancel/i);

      // An approval: input-required with the call, then a message on the task approves it, recorded as alice's.
      const asked = (await alice.sendMessage(send(userMessage("Refund")))) as Task;
      expect(asked.status!.state).toBe(6); // input-required
      const approvals = asked.status!.message!.parts.find((p) => p.content?.$case === "data")!.content!.value as {
        approvals: { tool: string }[];
      };
      expect(approvals.approvals.map((a) => a.tool)).toEqual(["refund"]);
      await expect(
        bob.sendMessage(send(userMessage("approve", { taskId: asked.id, contextId: asked.contextId }))),
      ).rejects.toThrow(/not found/i);
      const decided: StreamResponse[] = [];
      const approve = userMessage("", { taskId: asked.id, contextId: asked.contextId });
      approve.parts = [
        { content: { $case: "data", value: { approve: true } }, metadata: undefined, filename: "", mediaType: "" },
      ];
      for await (const event of alice.sendMessageStream(send(approve))) decided.push(event);
      expect(states(decided).at(-1)).toBe(3);
      expect(streamedText(decided)).toBe("Refund done.");
      expect(executed).toEqual([{ amount: 5 }]);
      const ctxWorkflow = (await alice.getTask({ tenant: "", id: asked.id })).metadata!.workflowId as string;
      const approvalEntry = (await harness.client.workflow.getHandle(ctxWorkflow).query("trace")) as {
        type: string;
        outcome?: string;
        by?: string;
      }[];
      expect(approvalEntry.find((e) => e.type === "approval" && e.outcome === "approved")).toMatchObject({
        by: "alice",
      });

      // A decision sent with a blocking message/send answers once the approved call has run and the answer is written.
      const askedAgain = (await alice.sendMessage(send(userMessage("Refund")))) as Task;
      expect(askedAgain.status!.state).toBe(6);
      const approveAgain = userMessage("approve", { taskId: askedAgain.id, contextId: askedAgain.contextId });
      const approved = (await alice.sendMessage(send(approveAgain))) as Task;
      expect(approved.status!.state).toBe(3);
      expect(textOf(approved)).toBe("Refund done.");
      expect(executed).toEqual([{ amount: 5 }, { amount: 5 }]);

      // A message its context's session refuses (the session has ended) is this request's error, and no task.
      await harness.client.workflow.getHandle(first.metadata!.workflowId as string).executeUpdate("end");
      await expect(alice.sendMessage(send(userMessage("After", { contextId: first.contextId })))).rejects.toThrow(
        /has ended/,
      );

      // A2A 1.0 through the SDK's default client (the card's 1.0 interface).
      const v1 = await new ClientFactory({
        transports: [new JsonRpcTransportFactory({ fetchImpl: fetchAs("carol") })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl: fetchAs("carol") }),
      }).createFromUrl(`${base}/`, ".well-known/agent-card.json");
      const v1Task = (await v1.sendMessage(send(userMessage("Hi")))) as Task;
      expect(textOf(v1Task)).toBe("echo: Hi (1)");

      // Bad input: not JSON, an unknown method, params that fail the schema (no run starts), an unknown agent.
      const requestsBefore = model.requests.length;
      expect(await rpc("{not json")).toMatchObject({ status: 200, json: { error: { code: -32700 } } });
      expect(await rpc(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tasks/explode", params: {} }))).toMatchObject({
        json: { error: { code: -32601 } },
      });
      for (const params of [
        {},
        { message: { kind: "message", role: "user", messageId: "m", parts: [] } },
        { message: { role: "user", messageId: "m", parts: [{ kind: "text", text: 5 }] } },
        {
          message: {
            role: "user",
            messageId: "m",
            contextId: "no spaces allowed",
            parts: [{ kind: "text", text: "Hi" }],
          },
        },
        { message: { role: "user", messageId: "m", parts: [{ kind: "data", data: { approve: true } }] } },
      ])
        expect(await rpc(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "message/send", params }))).toMatchObject({
          json: { error: { code: -32602 } },
        });
      expect(
        await rpc(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tasks/get", params: { id: 7 } })),
      ).toMatchObject({ json: { error: { code: -32602 } } });
      expect(model.requests.length).toBe(requestsBefore);
      const unknown = await fetch(`${base}/nope`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ error: { code: -32601 } });
      // A page of another origin is refused.
      expect((await rpc("{}", "alice", { origin: "https://evil.example" })).status).toBe(403);
    });
  });

  it("durable-agent a2a <module> --port 0 serves the module's agents: cards at their paths, a token required, tasks run by the workers of --task-queue", async () => {
    process.env.OPENAI_BASE_URL = model.baseURL; // the module's agents' model, for this process's worker
    process.env.OPENAI_API_KEY ??= "test";
    await withWorker(harness, [cliCoach, cliGreeter], async ({ taskQueue: queue }) => {
      const cli = startCli([
        "a2a",
        "test/fixtures/cli-agents.ts",
        "--port",
        "0",
        "--token",
        "t0ken",
        "--task-queue",
        queue,
      ]);
      try {
        const url = /on (http:\/\/\S+)/.exec(await cli.waitForLine("durable-agent a2a on"))![1]!;
        const card = (await (await fetch(`${url}/cli-greeter/.well-known/agent-card.json`)).json()) as { url: string };
        expect(card.url).toBe(`${url}/cli-greeter`);
        const withToken: typeof fetch = (input, init) =>
          fetch(input, {
            ...init,
            headers: { ...(init?.headers as Record<string, string>), authorization: "Bearer t0ken" },
          });
        const resolved = await new DefaultAgentCardResolver().resolve(`${url}/`, ".well-known/agent-card.json");
        expect(resolved.skills.map((s) => s.name)).toEqual(["cli-coach", "update_plan"]);
        const client = new A2AClient(new LegacyJsonRpcTransport({ endpoint: url, fetchImpl: withToken }), resolved);
        const task = (await client.sendMessage(send(userMessage("Hi")))) as Task;
        expect(textOf(task)).toBe("echo: Hi (1)");
        const refused = new A2AClient(new LegacyJsonRpcTransport({ endpoint: url }), resolved);
        await expect(refused.getTask({ tenant: "", id: task.id })).rejects.toThrow(/401|signed in/i);
      } finally {
        await cli.stop();
      }
    });
  });
});
