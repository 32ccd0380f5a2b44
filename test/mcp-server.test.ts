/**
 * Agents as MCP servers (issue 44), with clients no one here wrote: the official SDK's `Client`
 * over `StreamableHTTPClientTransport` (against createMcpHandler served by Node) and over
 * `StdioClientTransport` (launching `durable-agent mcp --stdio`), and
 * `@modelcontextprotocol/inspector-cli`. One in-process worker serves the agents of
 * test/fixtures/mcp-server/agents.ts on the scripted model; the crash case runs
 * `durable-agent worker` children and SIGKILLs one mid-call.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  ErrorCode,
  type CallToolResult,
  type Task,
} from "@modelcontextprotocol/sdk/types.js";
import type { Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { createMcpHandler, type McpHandler, type TraceEvent } from "../src/index.js";
import type { SessionTurns } from "../src/workflows/definitions.js";
import { startScriptedModel, type ScriptedModel, type ScriptedRequest } from "../src/testing/index.js";
import { cliEnv, startCli, type CliProcess } from "./support/cli-helpers.js";
import { connectHarness, taskQueue, testWorker, type Harness } from "./support/harness.js";
import { echo, refunder, typed } from "./fixtures/mcp-server/agents.js";

const AGENTS_MODULE = "test/fixtures/mcp-server/agents.ts";
const refundLog = join(mkdtempSync(join(tmpdir(), "mcp-server-")), "refunds.log");
let harness: Harness;
let model: ScriptedModel;
let worker: Worker;
let running: Promise<void>;
const queue = taskQueue();
const hung: ScriptedRequest[] = [];
let crashes = 0;
const servers: Array<{ close(): void }> = [];
const children: CliProcess[] = [];

beforeAll(async () => {
  harness = await connectHarness();
  model = await startScriptedModel(async (request) => {
    const messages = request.body.messages;
    const text = String(messages.findLast((m) => m.role === "user")?.content ?? "");
    if (text === "Hang") return (hung.push(request), await request.closed, "never");
    if (text === "Crash" && ++crashes === 1) return (hung.push(request), await request.closed, "never");
    if (text === "Refund 5")
      return messages.at(-1)!.role === "user"
        ? { toolCalls: [{ name: "refund", arguments: { amount: 5 } }] }
        : "Refunded.";
    if (text === "Typed") return JSON.stringify({ answer: "forty-two" });
    return `echo: ${text}`;
  });
  process.env.OPENAI_BASE_URL = model.baseURL;
  process.env.REFUND_LOG = refundLog;
  worker = await testWorker(harness, [echo, refunder, typed], { taskQueue: queue });
  running = worker.run();
});
afterAll(async () => {
  for (const child of children) child.child.kill("SIGKILL");
  for (const server of servers) server.close();
  worker?.shutdown();
  await running;
  await model?.close();
  await harness.close();
});

/** A handler on the suite's server whose authorize reads x-user ("nobody" is refused). */
function handler(options: { taskQueue?: string; session?: boolean; tasksPageSize?: number } = {}): McpHandler {
  return createMcpHandler({
    agents: [echo, refunder, typed],
    client: harness.client,
    taskQueue: options.taskQueue ?? queue,
    session: options.session ?? false,
    ...(options.tasksPageSize ? { tasksPageSize: options.tasksPageSize } : {}),
    authorize: (request) => {
      const user = request.headers.get("x-user");
      return user && user !== "nobody" ? { by: user } : false;
    },
  });
}

/** Serves a handler on loopback at /mcp; resolves to its URL. */
async function served(mcp: McpHandler): Promise<URL> {
  const server = await new Promise<ReturnType<typeof serve>>((done) => {
    const started = serve({ fetch: mcp, port: 0, hostname: "127.0.0.1" }, () => done(started));
  });
  servers.push({ close: () => (server.close(), "closeAllConnections" in server && server.closeAllConnections()) });
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
}

/** The SDK's client, connected over Streamable HTTP as `user`; `elicit` answers elicitation when given. */
async function connect(url: URL, user: string, elicit?: "accept" | "decline") {
  const client = new McpClient({ name: "test", version: "1" }, { capabilities: elicit ? { elicitation: {} } : {} });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, () => ({ action: elicit, content: {} }));
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { "x-user": user } } });
  await client.connect(transport);
  return { client, transport };
}

/** The result of request `id` in an SSE response body (the SDK's transport answers a POST as SSE). */
function answerOf(sse: string, id: number): CallToolResult {
  const messages = [...sse.matchAll(/^data: (.+)$/gm)].map(
    (m) => JSON.parse(m[1]!) as { id?: number; result?: unknown },
  );
  return messages.find((m) => m.id === id)!.result as CallToolResult;
}
const textOf = (result: CallToolResult) => result.content.flatMap((c) => (c.type === "text" ? [c.text] : [])).join("");
const runOf = (result: CallToolResult) => (result._meta?.["durable-agent/run"] as { workflowId: string }).workflowId;
const refunds = () => (existsSync(refundLog) ? readFileSync(refundLog, "utf8").trim().split("\n").filter(Boolean) : []);

let url: URL;
beforeAll(async () => {
  url = await served(handler());
});

describe("the official SDK client over Streamable HTTP", () => {
  it("lists each agent as a tool and calls one: a durable run, its text and trips as progress, typed output as structuredContent", async () => {
    const { client } = await connect(url, "alice");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["mcp-echo", "mcp-refunder", "mcp-typed"]);
    const echoTool = tools.find((t) => t.name === "mcp-echo")!;
    expect(echoTool.description).toBe("Answers with the message it is given.");
    expect(echoTool.inputSchema.required).toEqual(["message"]);
    expect(tools.find((t) => t.name === "mcp-typed")!.outputSchema?.properties).toHaveProperty("answer");

    const progress: string[] = [];
    const result = (await client.callTool({ name: "mcp-echo", arguments: { message: "hi" } }, CallToolResultSchema, {
      onprogress: (p) => void progress.push(p.message ?? ""),
    })) as CallToolResult;
    expect(textOf(result)).toBe("echo: hi");
    expect(progress[0]).toBe("trip 1");
    expect(progress.slice(1).join("")).toBe("echo: hi");
    const run = await harness.client.workflow.getHandle(runOf(result)).describe();
    expect(run.status.name).toBe("COMPLETED");

    const structured = (await client.callTool({
      name: "mcp-typed",
      arguments: { message: "Typed" },
    })) as CallToolResult;
    expect(structured.structuredContent).toEqual({ answer: "forty-two" });
    await client.close();
  });

  it.each([
    ["each call a run of its own", false],
    ["session: true", true],
  ])(
    "a retried request (same session, same request id) is the same run, with the same answer (%s)",
    async (_, session) => {
      const target = session ? await served(handler({ session: true })) : url;
      const { client, transport } = await connect(target, "alice");
      const body = {
        jsonrpc: "2.0",
        id: 777,
        method: "tools/call",
        params: { name: "mcp-echo", arguments: { message: "once" } },
      };
      const post = () =>
        fetch(target, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "x-user": "alice",
            "mcp-session-id": transport.sessionId!,
            "mcp-protocol-version": transport.protocolVersion!,
          },
          body: JSON.stringify(body),
        }).then(async (r) => answerOf(await r.text(), body.id));
      const before = model.requests.length;
      const [first, second] = [await post(), await post()];
      expect(textOf(first)).toBe("echo: once");
      expect(second).toEqual(first); // the same run (its workflow id in _meta) and the same answer
      expect(model.requests.length - before).toBe(1);
      if (session) {
        const { turns } = (await harness.client.workflow
          .getHandle(runOf(first))
          .query("session-turns")) as SessionTurns;
        expect(turns).toHaveLength(1); // one message of the durable session, not one per request
      }
      await client.close();
    },
  );

  it("notifications/cancelled cancels the run", async () => {
    const { client } = await connect(url, "alice");
    const abort = new AbortController();
    const call = client.callTool({ name: "mcp-echo", arguments: { message: "Hang" } }, undefined, {
      signal: abort.signal,
    });
    const before = hung.length;
    await expect.poll(() => hung.length).toBeGreaterThan(before);
    abort.abort("the user stopped it");
    await expect(call).rejects.toThrow();
    await hung.at(-1)!.closed; // the run's model call is cancelled
    await client.close();
  });

  it("a tool that needs approval is an elicitation: accepted, the tool runs once and the caller is recorded as the approver", async () => {
    const { client } = await connect(url, "alice", "accept");
    const result = (await client.callTool({
      name: "mcp-refunder",
      arguments: { message: "Refund 5" },
    })) as CallToolResult;
    expect(textOf(result)).toBe("Refunded.");
    expect(refunds()).toEqual(['{"amount":5}']);
    // The trace from the run's result (its history), not a query: a query waits for a worker, which a loaded machine gives late.
    const { trace } = (await harness.client.workflow.getHandle(runOf(result)).result()) as { trace: TraceEvent[] };
    expect(trace.find((e) => e.type === "approval" && e.outcome === "approved")).toMatchObject({ by: "alice" });
    await client.close();
  });

  it("a client without elicitation gets a result saying the call waits for approval, with the run's id", async () => {
    const { client } = await connect(url, "alice");
    const result = (await client.callTool({
      name: "mcp-refunder",
      arguments: { message: "Refund 5" },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain(`waits for approval of the tool "refund"`);
    expect(textOf(result)).toContain(runOf(result));
    await harness.client.workflow.getHandle(runOf(result)).cancel();
    await client.close();
  });

  it("a call made as a task answers at once; a second client of a restarted server polls it to its result; another user's is not found", async () => {
    const first = await connect(url, "alice");
    const { task } = await first.client.request(
      {
        method: "tools/call",
        params: { name: "mcp-echo", arguments: { message: "as a task" }, task: { ttl: 60_000 } },
      },
      CreateTaskResultSchema,
    );
    expect(task.status).toBe("working");
    await first.transport.terminateSession();
    await first.client.close();

    const restarted = await served(handler()); // a new handler: nothing in memory but what Temporal holds
    const second = await connect(restarted, "alice");
    const result = (await second.client.experimental.tasks.getTaskResult(
      task.taskId,
      CallToolResultSchema,
    )) as CallToolResult;
    expect(textOf(result)).toBe("echo: as a task");
    expect((await second.client.experimental.tasks.getTask(task.taskId)).status).toBe("completed");

    const other = await connect(restarted, "mallory");
    await expect(other.client.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/Task not found/);
    await expect(other.client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/Task not found/);
    await second.client.close();
    await other.client.close();
  });

  it("tasks/list: a caller's tasks from a restarted server, page by page, each as tasks/get has it; no one else's", async () => {
    const first = await connect(url, "carol");
    const asTask = async (message: string) => {
      const { task } = await first.client.request(
        { method: "tools/call", params: { name: "mcp-echo", arguments: { message }, task: { ttl: 60_000 } } },
        CreateTaskResultSchema,
      );
      return task.taskId;
    };
    const done = await asTask("listed");
    const hanging = hung.length;
    const working = await asTask("Hang");
    await first.client.experimental.tasks.getTaskResult(done, CallToolResultSchema);
    await first.transport.terminateSession();
    await first.client.close();

    const restarted = await served(handler({ tasksPageSize: 1 })); // nothing in memory: the list is Temporal's
    const second = await connect(restarted, "carol");
    const tasks = second.client.experimental.tasks;
    const everyPage = async () => {
      const listed: Task[] = [];
      let cursor: string | undefined;
      do {
        const page = await tasks.listTasks(cursor);
        expect(page.tasks.length).toBeLessThanOrEqual(1);
        listed.push(...page.tasks);
        cursor = page.nextCursor;
      } while (cursor);
      return listed;
    };
    // Temporal's visibility is eventually consistent: a task is listed once it is indexed.
    await expect
      .poll(async () => (await everyPage()).map((task) => task.taskId).sort(), { timeout: 60_000, interval: 200 })
      .toEqual([done, working].sort());
    const listed = await everyPage();
    expect(listed.find((task) => task.taskId === done)).toEqual(await tasks.getTask(done));
    expect(listed.find((task) => task.taskId === working)).toMatchObject({
      status: "working",
      createdAt: (await tasks.getTask(working)).createdAt,
    });
    await expect(tasks.listTasks("bm90IGEgY3Vyc29y")).rejects.toMatchObject({ code: ErrorCode.InvalidParams });

    const other = await connect(restarted, "eve");
    expect((await other.client.experimental.tasks.listTasks()).tasks).toEqual([]);
    await expect.poll(() => hung.length, { timeout: 60_000 }).toBeGreaterThan(hanging);
    await tasks.cancelTask(working);
    await hung[hanging]!.closed; // the run's model call is cancelled: nothing of it reaches the model later
    await second.client.close();
    await other.client.close();
  });
});

describe("session: true", () => {
  it("an MCP session is one durable session of the agent: its calls share one conversation", async () => {
    const { client } = await connect(await served(handler({ session: true })), "alice");
    expect((await client.listTools()).tools[0]!.execution?.taskSupport).toBe("forbidden");
    await client.callTool({ name: "mcp-echo", arguments: { message: "first" } });
    const progress: string[] = [];
    const second = (await client.callTool(
      { name: "mcp-echo", arguments: { message: "second" } },
      CallToolResultSchema,
      {
        onprogress: (p) => void progress.push(p.message ?? ""),
      },
    )) as CallToolResult;
    expect(textOf(second)).toBe("echo: second");
    expect(progress.join("")).toContain("echo: second");
    expect(model.requests.at(-1)!.body.messages.map((m) => m.content)).toEqual(
      expect.arrayContaining(["first", "echo: first", "second"]),
    );
    await client.close();
  });
});

describe("bad input", () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "x-user": "alice",
        ...headers,
      },
      body,
    });

  it("a body that does not parse is a JSON-RPC parse error (400, never 500)", async () => {
    const response = await post("{not json");
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(ErrorCode.ParseError);
  });

  it("a refused caller is 401; a request from another origin is 403", async () => {
    expect((await post("{}", { "x-user": "nobody" })).status).toBe(401);
    expect((await post("{}", { origin: "https://evil.example" })).status).toBe(403);
    expect((await fetch(url, { headers: { origin: "https://evil.example", "x-user": "alice" } })).status).toBe(403);
  });

  it("arguments failing the schema are a tool error and start no run; an unknown tool is a protocol error", async () => {
    const { client } = await connect(url, "alice");
    const before = model.requests.length;
    const bad = (await client.callTool({ name: "mcp-echo", arguments: { message: 5 } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain("Invalid arguments for tool mcp-echo");
    expect(model.requests.length).toBe(before);
    await expect(client.callTool({ name: "no-such-agent", arguments: { message: "hi" } })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining("Unknown tool: no-such-agent"),
    });
    await client.close();
  });

  it("a tasks page size out of 1-100 is an AgentOptionsError at once", () => {
    const options = { agents: [echo], authorize: () => false as const };
    for (const tasksPageSize of [0, 101, 2.5])
      expect(() => createMcpHandler({ ...options, tasksPageSize })).toThrow(
        expect.objectContaining({ name: "AgentOptionsError", field: "tasksPageSize" }),
      );
  });
});

describe("durable-agent mcp and other clients", () => {
  const env = { OPENAI_API_KEY: "test" };
  const entry = ["--import", "tsx", "--conditions=durable-agent-source", "src/cli/index.ts"];

  it("StdioClientTransport launching `durable-agent mcp --stdio` lists and calls", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...entry, "mcp", AGENTS_MODULE, "--stdio", "--task-queue", queue, "--as", "alice"],
      env: cliEnv(env) as Record<string, string>,
      stderr: "pipe",
    });
    const client = new McpClient({ name: "test", version: "1" });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("mcp-echo");
    const result = (await client.callTool({
      name: "mcp-echo",
      arguments: { message: "over stdio" },
    })) as CallToolResult;
    expect(textOf(result)).toBe("echo: over stdio");
    await client.close();
  });

  it("@modelcontextprotocol/inspector-cli lists and calls the tools of `durable-agent mcp --port`", async () => {
    const server = startCli(["mcp", AGENTS_MODULE, "--port", "0", "--task-queue", queue], env);
    children.push(server);
    const line = await server.waitForLine("durable-agent mcp on ");
    const mcpUrl = /(http:\S+)/.exec(line)![1]!;
    const inspector = (args: string[]) =>
      new Promise<string>((resolve, reject) => {
        // Run from its build folder: inspector-cli 1.0.3 finds its own package.json relative to the working directory.
        const cwd = join(process.cwd(), "node_modules/@modelcontextprotocol/inspector-cli/build");
        const child = spawn(process.execPath, ["cli.js", "--cli", mcpUrl, "--transport", "http", ...args], { cwd });
        let out = "";
        let err = "";
        child.stdout.on("data", (chunk) => (out += chunk));
        child.stderr.on("data", (chunk) => (err += chunk));
        child.on("close", (code) =>
          code === 0 ? resolve(out) : reject(new Error(`inspector-cli exited ${code}: ${out}${err}`)),
        );
      });
    const listed = JSON.parse(await inspector(["--method", "tools/list"])) as { tools: Array<{ name: string }> };
    expect(listed.tools.map((t) => t.name).sort()).toEqual(["mcp-echo", "mcp-refunder", "mcp-typed"]);
    const called = JSON.parse(
      await inspector(["--method", "tools/call", "--tool-name", "mcp-echo", "--tool-arg", "message=inspected"]),
    ) as CallToolResult;
    expect(textOf(called)).toBe("echo: inspected");
    await server.stop();
  });

  it("a worker SIGKILLed mid-call: the call completes on the next worker", async () => {
    const crashQueue = taskQueue();
    const workerArgs = [
      "worker",
      AGENTS_MODULE,
      "--task-queue",
      crashQueue,
      "--workflow-bundle",
      inject("workflowBundlePath"),
    ];
    const workerEnv = { ...env, OPENAI_BASE_URL: model.baseURL };
    const first = startCli(workerArgs, workerEnv);
    children.push(first);
    const { client } = await connect(await served(handler({ taskQueue: crashQueue })), "alice");
    const call = client.callTool({ name: "mcp-echo", arguments: { message: "Crash" } }, undefined, {
      timeout: 600_000,
    });
    await expect.poll(() => crashes, { timeout: 120_000 }).toBe(1);
    first.child.kill("SIGKILL");
    await first.exited;
    const second = startCli(workerArgs, workerEnv);
    children.push(second);
    expect(textOf((await call) as CallToolResult)).toBe("echo: Crash");
    await second.stop();
    await client.close();
  });
});
