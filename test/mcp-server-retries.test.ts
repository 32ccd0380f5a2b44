/**
 * A retried MCP request in `session: true` mode is the same session message (one model request,
 * one turn) after the durable session continued as new, and after the MCP server restarted (a
 * fresh handler taking up the session id). On its own dev server, whose continue-as-new
 * suggestion threshold is lowered to 40 history events, with the official SDK's client and raw
 * POSTs of the JSON-RPC body (a retry is the same body again).
 */
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Client } from "@temporalio/client";
import type { NativeConnection, Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ai, createMcpHandler, type Agent, type McpHandler } from "../src/index.js";
import { startScriptedModel, type DevServer, type ScriptedModel } from "../src/testing/index.js";
import { startContinueAsNewServer } from "./support/continue-as-new-server.js";
import type { SessionTurns } from "../src/workflows/definitions.js";
import { createAgentWorker } from "../src/worker.js";
import { connectHarness, type Harness } from "./support/harness.js";
import { decodedHistory, replaysAndKeeps } from "./support/history-helpers.js";

let harness: Harness;
let server: DevServer;
let connection: NativeConnection;
let client: Client;
let model: ScriptedModel;
let echo: Agent;
let worker: Worker;
let running: Promise<void>;
const taskQueue = `mcp-retries-${randomUUID()}`;
const servers: Array<{ close(): void }> = [];

/** The text of a request's last user message: what the scripted model answers, and what requests are counted by. */
const asked = (request: { body: { messages: Array<{ role: string; content?: unknown }> } }) =>
  String(request.body.messages.findLast((m) => m.role === "user")?.content ?? "");

beforeAll(async () => {
  harness = await connectHarness(); // installs the quiet runtime
  ({ server, connection, client } = await startContinueAsNewServer());
  model = await startScriptedModel(async (request) => `echo: ${asked(request)}`);
  echo = ai.agent({ name: "mcp-echo", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
  worker = await createAgentWorker({
    agents: [echo],
    connection,
    taskQueue,
    workflowBundle: { codePath: inject("workflowBundlePath") },
  });
  running = worker.run();
});
afterAll(async () => {
  for (const served of servers) served.close();
  worker?.shutdown();
  await running;
  await model?.close();
  await connection?.close();
  await server?.stop();
  await harness.close();
});

/** A `session: true` handler on this file's server: a new one is a restarted server (nothing in memory but what Temporal holds). */
function handler(): McpHandler {
  return createMcpHandler({
    agents: [echo],
    client,
    taskQueue,
    session: true,
    authorize: (request) => {
      const user = request.headers.get("x-user");
      return user ? { by: user } : false;
    },
  });
}

/** Serves a handler on loopback at /mcp; resolves to its URL. */
async function served(mcp: McpHandler): Promise<URL> {
  const http = await new Promise<ReturnType<typeof serve>>((done) => {
    const started = serve({ fetch: mcp, port: 0, hostname: "127.0.0.1" }, () => done(started));
  });
  servers.push({ close: () => (http.close(), "closeAllConnections" in http && http.closeAllConnections()) });
  return new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
}

/** The SDK's client over Streamable HTTP as `user`; with `sessionId`, reconnecting to that session (no initialize). */
async function connect(url: URL, user: string, sessionId?: string) {
  const mcp = new McpClient({ name: "test", version: "1" });
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { "x-user": user } },
    ...(sessionId ? { sessionId } : {}),
  });
  await mcp.connect(transport);
  return { mcp, transport };
}

/** A tools/call of mcp-echo as a raw JSON-RPC body, POSTed in session `sessionId`: the same call again is a retry. */
function rawCall(id: number, message: string) {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "mcp-echo", arguments: { message } },
  });
  return (url: URL, sessionId: string, user = "alice") =>
    fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "x-user": user,
        "mcp-session-id": sessionId,
      },
      body,
    });
}

/** The result of request `id` in an SSE response body (the SDK's transport answers a POST as SSE). */
async function answerOf(response: Response, id: number): Promise<CallToolResult> {
  expect(response.status).toBe(200);
  const messages = [...(await response.text()).matchAll(/^data: (.+)$/gm)].map(
    (m) => JSON.parse(m[1]!) as { id?: number; result?: unknown },
  );
  return messages.find((m) => m.id === id)!.result as CallToolResult;
}
const textOf = (result: CallToolResult) => result.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("");
const sessionOf = (result: CallToolResult) =>
  (result._meta?.["durable-agent/run"] as { workflowId: string }).workflowId;
const modelCallsFor = (text: string) => model.requests.filter((request) => asked(request) === text).length;
const turnsOf = async (workflowId: string) =>
  ((await client.workflow.getHandle(workflowId).query("session-turns")) as SessionTurns).turns;

describe("a retried request in session: true mode", () => {
  it("after the durable session continued as new: the same message (one model request, one turn); the new run replays", async () => {
    const url = await served(handler());
    const { mcp, transport } = await connect(url, "alice");
    const once = rawCall(900, "once");
    const first = await answerOf(await once(url, transport.sessionId!), 900);
    expect(textOf(first)).toBe("echo: once");
    const workflowId = sessionOf(first);
    const { runId: firstRunId } = await client.workflow.getHandle(workflowId).describe();
    // More messages until the run that took "once" has continued as new (each message adds history events).
    let sent = 1;
    const firstRun = client.workflow.getHandle(workflowId, firstRunId);
    while ((await firstRun.describe()).status.name === "RUNNING" && sent < 20)
      await mcp.callTool({ name: "mcp-echo", arguments: { message: `more ${sent++}` } });
    expect((await firstRun.describe()).status.name).toBe("CONTINUED_AS_NEW");

    const retried = await answerOf(await once(url, transport.sessionId!), 900);
    expect(retried).toEqual(first); // the same session (in _meta) and the same answer
    expect(modelCallsFor("once")).toBe(1);
    const turns = await turnsOf(workflowId);
    expect(turns).toHaveLength(sent); // one turn per message sent, none for the retry
    expect(turns.filter((turn) => turn.updateId.startsWith("mcp-request-900-"))).toHaveLength(1);
    // The run that answered the retry took the patch at its start, and ran nothing for it (no activity in its history).
    const history = decodedHistory(await client.workflow.getHandle(workflowId).fetchHistory());
    expect(history).toContain("durable-agent.session-repeats-across-runs");
    expect(history).toMatch(/mcp-request-900-/);
    await replaysAndKeeps({ workflow: client.workflow.getHandle(workflowId) }, "session-repeat-after-continue-as-new");
    await mcp.close();
  });

  it("to a restarted server: the same message; a client reconnecting with its session id goes on with the conversation", async () => {
    const before = await served(handler());
    const { mcp, transport } = await connect(before, "alice");
    const sessionId = transport.sessionId!;
    // The SDK numbers requests from 0 per client: initialize was 0, this call is 1.
    const firstCall = (await mcp.callTool({ name: "mcp-echo", arguments: { message: "first" } })) as CallToolResult;
    const call = rawCall(901, "before the restart");
    const first = await answerOf(await call(before, sessionId), 901);
    expect(textOf(first)).toBe("echo: before the restart");

    const after = await served(handler()); // the restarted server
    const retried = await answerOf(await call(after, sessionId), 901);
    expect(retried).toEqual(first);
    expect(modelCallsFor("before the restart")).toBe(1);
    expect(await turnsOf(sessionOf(first))).toHaveLength(2);
    // Another caller naming alice's session id finds nothing, on the restarted server as on the first.
    expect((await call(after, sessionId, "mallory")).status).toBe(404);

    // The SDK's client reconnecting with its session id (no initialize): its requests are numbered from 0 again,
    // so its second call has the id of "first"; it is a new message all the same, in the same conversation.
    const again = await connect(after, "alice", sessionId);
    const zero = (await again.mcp.callTool({ name: "mcp-echo", arguments: { message: "zero" } })) as CallToolResult;
    const next = (await again.mcp.callTool({ name: "mcp-echo", arguments: { message: "next" } })) as CallToolResult;
    expect([textOf(zero), textOf(next)]).toEqual(["echo: zero", "echo: next"]);
    expect(sessionOf(next)).toBe(sessionOf(firstCall));
    expect(model.requests.at(-1)!.body.messages.map((m) => m.content)).toEqual(
      expect.arrayContaining(["first", "echo: first", "before the restart", "zero", "next"]),
    );
    expect(await turnsOf(sessionOf(first))).toHaveLength(4);
    await again.mcp.close();
    await mcp.close();
  });
});
