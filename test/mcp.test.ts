/**
 * Issue 14: MCP servers' tools as durable activities. Real MCP servers built with the official SDK
 * (test/fixtures/mcp): one over stdio started by the worker, one over Streamable HTTP on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, AgentOptionsError, MCP_IDEMPOTENCY_KEY, McpServerError, type RunResult } from "../src/index.js";
import { startScriptedModel, type ScriptedTurn } from "../src/testing/index.js";
import { startHttpMcpServer, startSseMcpServer, type HttpMcpFixture } from "./fixtures/mcp/http-server.js";
import { activityDurations, activitySummaries, stdioToolset } from "./support/mcp-helpers.js";
import { approvalRequested } from "./support/approval-helpers.js";
import { connectHarness, withWorker, type Harness } from "./support/harness.js";

let harness: Harness;
let http: HttpMcpFixture;
let cancelled: string[] = [];
let longCallStarted: () => void = () => undefined;
const library = stdioToolset();
const gym = () => ai.mcp({ name: "gym", url: http.url, prefix: true });

beforeAll(async () => {
  harness = await connectHarness();
  http = await startHttpMcpServer({
    onCancelled: (tool) => cancelled.push(tool),
    onLongCallStarted: () => longCallStarted(),
  });
});
afterAll(async () => {
  await library.close();
  await http.close();
  await harness.close();
});

const executed: unknown[] = [];
const updatePlan = ai.tool({
  name: "update_plan",
  input: z.object({ from: z.string(), to: z.string() }),
  execute: async (input) => {
    executed.push(input);
    return { ok: true };
  },
});

/** Runs one agent (a fresh model script) on a fresh worker; returns the result, the model's requests and the history. */
async function runAgent(
  script: ScriptedTurn[],
  options: Partial<Parameters<typeof ai.agent>[0]> & { input?: string } = {},
) {
  return (await runAgentSeries([script], options))[0]!;
}

/**
 * Runs one after another on one worker (its MCP connections stay open between them), each with its
 * part of the script; each run's figures carry the model's requests so far.
 */
async function runAgentSeries(
  scripts: ScriptedTurn[][],
  options: Partial<Parameters<typeof ai.agent>[0]> & { input?: string } = {},
  between?: (previous: RunResult) => void,
) {
  const model = await startScriptedModel(scripts.flat());
  const { input = "Swap squats for lunges", ...agentOptions } = options;
  const agent = ai.agent({
    name: "mcp-coach",
    model: ai.openai("gpt-test", { baseURL: model.baseURL }),
    tools: [library, gym(), updatePlan],
    ...agentOptions,
  });
  try {
    return await withWorker(harness, [agent], async ({ taskQueue }) => {
      const runs = [];
      for (const _ of scripts) {
        const handle = await agent.start(input, { client: harness.client, taskQueue });
        runs.push({
          result: await handle.result(),
          requests: model.requests,
          history: await handle.workflow.fetchHistory(),
        });
        if (runs.length < scripts.length) between?.(runs.at(-1)!.result);
      }
      return runs;
    });
  } finally {
    await model.close();
  }
}

const call = (name: string, args: unknown = {}) => ({ name, arguments: args });

/** The attempt that completed each tool.execute activity. */
function toolAttempts(history: Awaited<ReturnType<typeof runAgent>>["history"]): number[] {
  const events = history.events ?? [];
  return events.flatMap((e) => {
    const started = e.activityTaskStartedEventAttributes;
    const scheduled =
      started &&
      events.find((s) => Number(s.eventId) === Number(started.scheduledEventId))?.activityTaskScheduledEventAttributes;
    return started && scheduled?.activityType?.name === "tool.execute" ? [started.attempt ?? 0] : [];
  });
}

describe("an agent with MCP tools", () => {
  it("uses a stdio server, an HTTP server and an ai.tool in one run: each MCP call is a tool.execute activity naming its server", async () => {
    const { result, requests, history } = await runAgent([
      {
        toolCalls: [
          call("lookup_exercise", { name: "lunges" }),
          call("gym__lookup_exercise", { name: "step-ups" }),
          call("update_plan", { from: "squats", to: "lunges" }),
        ],
      },
      "Swapped squats for lunges.",
    ]);
    expect(result).toMatchObject({ stopReason: "answered", reply: "Swapped squats for lunges.", trips: 2 });
    expect(result.toolCalls).toMatchObject([
      {
        name: "lookup_exercise",
        source: "mcp:library",
        status: "ok",
        trip: 1,
        input: { name: "lunges" },
        output: { content: [{ type: "text", text: "lunges: a lower-body exercise" }] },
      },
      {
        name: "gym__lookup_exercise",
        source: "mcp:gym",
        status: "ok",
        output: { content: [{ type: "text", text: "step-ups: a lower-body exercise" }] },
      },
      { name: "update_plan", status: "ok", output: { ok: true } },
    ]);
    expect(result.toolCalls[2]).not.toHaveProperty("source");
    // The model sees each MCP tool under its own name (or the prefixed one), with its own description and JSON schema.
    const offered = requests[0]!.body.tools as Array<{
      function: {
        name: string;
        description?: string;
        parameters: { properties?: Record<string, unknown>; required?: string[] };
      };
    }>;
    const lookup = offered.find((t) => t.function.name === "lookup_exercise")!;
    expect(lookup.function.description).toBe("Looks an exercise up in the library.");
    expect(lookup.function.parameters).toMatchObject({
      type: "object",
      properties: { name: { type: "string", minLength: 1 } },
      required: ["name"],
    });
    expect(offered.map((t) => t.function.name)).toEqual(
      expect.arrayContaining([
        "update_plan",
        "lookup_exercise",
        "gym__lookup_exercise",
        "gym__show_chart",
        "show_chart",
      ]),
    );
    expect(requests[1]!.body.tools).toEqual(requests[0]!.body.tools);
    // The tool message the model gets is the MCP content.
    expect(requests[1]!.body.messages.find((m) => m.role === "tool")?.content).toBe(
      JSON.stringify({ content: [{ type: "text", text: "lunges: a lower-body exercise" }] }),
    );
    const summaries = activitySummaries(history);
    expect(summaries).toEqual([
      "mcp list tools (library, gym)",
      "model gpt-test · trip 1",
      "tool lookup_exercise (mcp library)",
      "tool gym__lookup_exercise (mcp gym)",
      "tool update_plan",
      "model gpt-test · trip 2",
    ]);
    const durations = activityDurations(history);
    const listMs = durations.find((d) => d.type === "mcp.list")!.ms;
    const callMs = durations.filter((d) => d.type === "tool.execute").map((d) => d.ms);
    console.log(
      `MCP figures (first run on a worker: stdio server started, HTTP session opened): mcp.list ${listMs} ms; tool.execute stdio ${callMs[0]} ms, http ${callMs[1]} ms, ai.tool ${callMs[2]} ms`,
    );
  });

  it("a second run reuses the worker's connections: the same stdio server process answers (figures for listing and one call logged)", async () => {
    const runs = await runAgentSeries([
      [{ toolCalls: [call("whoami")] }, "Done."],
      [{ toolCalls: [call("whoami"), call("gym__lookup_exercise", { name: "lunges" })] }, "Done."],
    ]);
    const [first, { result, history }] = [runs[0]!, runs[1]!];
    expect(result.toolCalls.map((c) => c.status)).toEqual(["ok", "ok"]);
    expect(result.toolCalls[0]!.output).toEqual(first.result.toolCalls[0]!.output);
    const durations = activityDurations(history);
    const listMs = durations.find((d) => d.type === "mcp.list")!.ms;
    const callMs = durations.filter((d) => d.type === "tool.execute").map((d) => d.ms);
    console.log(
      `MCP figures (warm connections): mcp.list of both servers ${listMs} ms; tool.execute stdio ${callMs[0]} ms, http ${callMs[1]} ms`,
    );
  });

  it("isError results and throwing tools are refusals with their text as the reason; invalid input is refused before the call; onToolRefusal applies", async () => {
    const { result, requests } = await runAgent(
      [
        {
          toolCalls: [
            call("locked_plan"),
            call("gym__explode"),
            call("lookup_exercise", { name: 5 }),
            call("lookup_exercise", { name: "moonwalks" }),
          ],
        },
        "Sorry, nothing worked.",
        { toolCalls: [call("lookup_exercise", { name: "lunges" })] },
        "Lunges it is.",
      ],
      { onToolRefusal: "retry-once-with-hint" },
    );
    expect(result.toolCalls.slice(0, 4)).toMatchObject([
      { name: "locked_plan", status: "refused", reason: "the plan is locked until Monday", source: "mcp:library" },
      {
        name: "gym__explode",
        status: "refused",
        reason: "kaboom: the exercise database is offline",
        source: "mcp:gym",
      },
      {
        name: "lookup_exercise",
        status: "refused",
        reason: expect.stringMatching(/^Invalid input for "lookup_exercise": data\/name must be string/),
      },
      { name: "lookup_exercise", status: "refused", reason: '"moonwalks" is not in the library' },
    ]);
    expect(result.trace.filter((e) => e.type === "reprompt").map((e) => (e as { kind: string }).kind)).toEqual([
      "refusal-retry",
    ]);
    expect(requests[2]!.body.messages.at(-1)!.content).toMatch(/lookup_exercise/);
    expect(result).toMatchObject({ stopReason: "answered", reply: "Lunges it is." });
  });

  it("results keep images and resources as MCP content parts up to limits.toolOutputBytes, with a marker beyond it", async () => {
    const { result } = await runAgent(
      [
        { toolCalls: [call("show_chart", { bytes: 300 }), call("gym__show_chart", { bytes: 20_000 })] },
        "Here is your chart.",
      ],
      { limits: { toolOutputBytes: 4096 } },
    );
    const [small, large] = result.toolCalls as Array<{ output: { content: Array<Record<string, unknown>> } }>;
    expect(small!.output.content.map((p) => p.type)).toEqual(["text", "image", "resource"]);
    expect(small!.output.content[1]).toMatchObject({
      type: "image",
      mimeType: "image/png",
      data: Buffer.alloc(300, 7).toString("base64"),
    });
    expect(small!.output.content[2]).toMatchObject({
      resource: { uri: "plan://week/volume.csv", text: "day,sets\nmon,12\n" },
    });
    expect(large!.output.content).toEqual([
      { type: "text", text: "Your weekly volume:" },
      {
        type: "text",
        text: expect.stringMatching(
          /^\[durable-agent: image image\/png, \d+ bytes and 1 more part\(s\) omitted, over limits\.toolOutputBytes \(4096\)\]$/,
        ),
      },
    ]);
    expect(Buffer.byteLength(JSON.stringify(large!.output))).toBeLessThanOrEqual(4096);
  });
});

describe("ai.mcp options", () => {
  it("a tool name that clashes with another tool of the agent fails the run at its start with an AgentOptionsError naming both; prefix: true keeps them apart", async () => {
    const clash = ai.tool({ name: "lookup_exercise", input: z.object({}), execute: () => "mine" });
    const failure = await runAgent(["never reached"], { tools: [library, clash] }).catch((error: unknown) => error);
    expect(AgentOptionsError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toMatch(
      /tool "lookup_exercise" of MCP server "library" clashes with the agent's tool "lookup_exercise" \(ai\.tool\).*prefix: true/,
    );
    const twoServers = await runAgent(["never reached"], {
      tools: [library, ai.mcp({ name: "gym", url: http.url })],
    }).catch((error: unknown) => error);
    expect((twoServers as Error).message).toMatch(
      /tool "lookup_exercise" of MCP server "gym" clashes with tool "lookup_exercise" of MCP server "library"/,
    );
    const { result } = await runAgent(
      [{ toolCalls: [call("library__lookup_exercise", { name: "lunges" }), call("lookup_exercise")] }, "Done."],
      {
        tools: [stdioToolset({ prefix: true, tools: ["lookup_exercise"] }), clash],
      },
    );
    expect(result.toolCalls).toMatchObject([
      { name: "library__lookup_exercise", status: "ok", source: "mcp:library" },
      { name: "lookup_exercise", status: "ok", output: "mine" },
    ]);
  });

  it("`tools` exposes only some tools (names or a predicate); a name the server lacks, or a requiredTools entry naming no tool, fails the run at its start", async () => {
    const { result, requests } = await runAgent([{ toolCalls: [call("whoami")] }, "Done."], {
      tools: [library, ai.mcp({ name: "gym", url: http.url, prefix: true, tools: (t) => t.name.startsWith("lookup") })],
    });
    expect(result.toolCalls).toMatchObject([{ name: "whoami", status: "ok" }]);
    expect(
      (requests[0]!.body.tools as Array<{ function: { name: string } }>)
        .map((t) => t.function.name)
        .filter((n) => n.startsWith("gym__")),
    ).toEqual(["gym__lookup_exercise"]);
    const missing = await runAgent(["never reached"], {
      tools: [ai.mcp({ name: "gym", url: http.url, tools: ["lookup_exercise", "teleport"] })],
    }).catch((error: unknown) => error);
    expect((missing as Error).message).toMatch(
      /MCP server "gym" has no tool "teleport" \(it lists "lookup_exercise", /,
    );
    const required = await runAgent(["never reached"], {
      tools: [library],
      actWhenAsked: { intents: ["swap"], requiredTools: ["update_plan"] },
    }).catch((error: unknown) => error);
    expect(AgentOptionsError.isInstance(required) && required.field).toBe("actWhenAsked.requiredTools");
  });

  it("bad options throw AgentOptionsError naming the field", () => {
    expect(() => ai.mcp({ name: "x", command: "a", url: "http://b" } as never)).toThrow(
      /Invalid option `mcp.url`: MCP server "x" needs either a command/,
    );
    expect(() => ai.mcp({ name: "x", url: "ftp://b" })).toThrow(/`mcp.url`: must be an http\(s\) URL/);
    expect(() => ai.mcp({ name: "x", url: "http://b", retries: 3 } as never)).toThrow(
      /`mcp.retries`: is not an option of ai.mcp\(\)/,
    );
    expect(() => ai.mcp({ name: "x", url: "http://b", timeout: "soon" })).toThrow(/`mcp.timeout`: must be a duration/);
    expect(() => ai.agent({ model: ai.openai("m"), tools: [library, stdioToolset()] })).toThrow(
      /two MCP toolsets are named "library"/,
    );
  });
});

/** Resolves with the first approval request the run's stream shows. */
describe("MCP calls in a durable run", () => {
  it("needsApproval (a list of names) pauses before an MCP call; approve runs it, reject refuses it without calling", async () => {
    const model = await startScriptedModel([
      { toolCalls: [call("gym__lookup_exercise", { name: "lunges" }), call("gym__whoami")] },
      "Looked it up.",
    ]);
    const agent = ai.agent({
      name: "mcp-approval",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [ai.mcp({ name: "gym", url: http.url, prefix: true, needsApproval: ["lookup_exercise"] })],
    });
    const result = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Look up lunges", { client: harness.client, taskQueue });
      const event = await approvalRequested(handle);
      expect(event).toMatchObject({ tool: "gym__lookup_exercise", input: { name: "lunges" } });
      await handle.approve(event.callId);
      return handle.result();
    });
    expect(result.toolCalls).toMatchObject([
      { name: "gym__lookup_exercise", status: "ok", source: "mcp:gym" },
      { name: "gym__whoami", status: "ok" },
    ]);
    expect(result.trace.filter((e) => e.type === "approval").map((e) => (e as { outcome: string }).outcome)).toEqual([
      "requested",
      "approved",
    ]);
    await model.close();

    const rejecting = await startScriptedModel([
      { toolCalls: [call("lookup_exercise", { name: "lunges" })] },
      "Not allowed.",
    ]);
    const strict = ai.agent({
      name: "mcp-approval",
      model: ai.openai("gpt-test", { baseURL: rejecting.baseURL }),
      tools: [stdioToolset({ needsApproval: ({ input }) => (input as { name: string }).name === "lunges" })],
    });
    const rejected = await withWorker(harness, [strict], async ({ taskQueue }) => {
      const handle = await strict.start("Look up lunges", { client: harness.client, taskQueue });
      await handle.reject((await approvalRequested(handle)).callId, "not today");
      return handle.result();
    });
    expect(rejected.toolCalls).toMatchObject([
      { name: "lookup_exercise", status: "refused", reason: "rejected by a person: not today", source: "mcp:library" },
    ]);
    await rejecting.close();
  });

  it("progress notifications keep a long call alive past `timeout`; a call with no answer within `timeout` is failed", async () => {
    const { result, history } = await runAgent(
      [{ toolCalls: [call("count_slowly", { steps: 6, delayMs: 150 }), call("wait_forever")] }, "Counted."],
      { tools: [stdioToolset({ name: "slow", timeout: "500 milliseconds" })] },
    );
    expect(toolAttempts(history)).toEqual([1, 1]); // the server answered (or let the time pass): not retried
    expect(result.toolCalls).toMatchObject([
      { name: "count_slowly", status: "ok", output: { content: [{ type: "text", text: "counted to 6" }] } },
      {
        name: "wait_forever",
        status: "failed",
        source: "mcp:slow",
        error: expect.stringMatching(
          /^MCP server "slow" \(.*stdio-server\.ts\): no answer within 500 ms \(the `timeout` option\)$/,
        ),
      },
    ]);
  });

  it("cancelling the run sends MCP cancellation to the server", async () => {
    const model = await startScriptedModel([{ toolCalls: [call("gym__wait_forever")] }, "unreachable"]);
    const agent = ai.agent({
      name: "mcp-cancel",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      timeouts: { heartbeat: "2 seconds" },
      tools: [gym()],
    });
    cancelled = [];
    const started = new Promise<void>((resolve) => (longCallStarted = resolve));
    const result = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start("Wait", { client: harness.client, taskQueue });
      await started;
      await handle.workflow.cancel();
      return handle.result();
    });
    expect(result.stopReason).toBe("cancelled");
    expect(cancelled).toEqual(["wait_forever"]);
    await model.close();
  });

  it("each call carries its idempotency key in _meta (durable-agent/idempotencyKey), the tools' ctx.idempotencyKey, over stdio and HTTP", async () => {
    const { result } = await runAgent([
      { toolCalls: [call("idempotency_key"), call("gym__idempotency_key")] },
      "Keys.",
    ]);
    expect(MCP_IDEMPOTENCY_KEY).toBe("durable-agent/idempotencyKey");
    const keys = result.toolCalls.map((c) => (c.output as { content: Array<{ text: string }> }).content[0]!.text);
    expect(keys).toEqual(result.toolCalls.map((c) => `${result.workflowId}/trip-1/${c.id}`));
  });

  it("a run that starts while its HTTP server restarts (down 4 s) waits for it: mcp.list retries a refused connection within its attempt", async () => {
    const first = await startHttpMcpServer();
    await first.close();
    const toolset = ai.mcp({ name: "restarting", url: first.url });
    const back = new Promise((resolve) => setTimeout(resolve, 4_000)).then(() =>
      startHttpMcpServer({}, { port: first.port }),
    );
    try {
      const { result } = await runAgent([{ toolCalls: [call("lookup_exercise", { name: "lunges" })] }, "Listed."], {
        tools: [toolset],
      });
      expect(result.toolCalls).toMatchObject([{ status: "ok", source: "mcp:restarting" }]);
    } finally {
      await (await back).close();
      await toolset.close();
    }
  });

  it("a stdio server that died is restarted on the next call", async () => {
    const toolset = stdioToolset({ name: "fragile" });
    try {
      let pid = 0;
      const whoami = [{ toolCalls: [call("whoami")] }, "Done."];
      const runs = await runAgentSeries([whoami, whoami], { tools: [toolset] }, (first) => {
        pid = Number((first.toolCalls[0]!.output as { content: Array<{ text: string }> }).content[0]!.text);
        process.kill(pid, "SIGKILL");
      });
      const second = runs[1]!;
      expect(second.result.toolCalls).toMatchObject([{ status: "ok" }]);
      const newPid = Number(
        (second.result.toolCalls[0]!.output as { content: Array<{ text: string }> }).content[0]!.text,
      );
      expect(newPid).not.toBe(pid);
      expect(newPid).toBeGreaterThan(0);
    } finally {
      await toolset.close();
    }
  });

  it("a stdio server started for a worker stops when the worker shuts down", async () => {
    const toolset = stdioToolset({ name: "worker-bound" });
    const { result } = await runAgent([{ toolCalls: [call("whoami")] }, "Done."], { tools: [toolset] }); // the worker has shut down when this returns
    const pid = Number((result.toolCalls[0]!.output as { content: Array<{ text: string }> }).content[0]!.text);
    expect(pid).toBeGreaterThan(0);
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
  });

  it("the HTTP server down: a run fails with McpServerError naming the server and URL; a call of a run that listed before fails the same way; back up, runs work again", async () => {
    const server = await startHttpMcpServer();
    const cached = ai.mcp({ name: "flaky", url: server.url, cacheToolsFor: "1 hour" });
    await runAgent([{ toolCalls: [call("whoami")] }, "Up."], { tools: [cached] });
    await server.close();
    const down = await runAgent([{ toolCalls: [call("lookup_exercise", { name: "lunges" })] }, "It was down."], {
      tools: [cached],
    });
    expect(down.result.toolCalls).toMatchObject([
      { status: "failed", source: "mcp:flaky", error: expect.stringContaining(`MCP server "flaky" (${server.url}): `) },
    ]);
    expect(toolAttempts(down.history)).toEqual([3]); // a lost connection is retried by Temporal (3 attempts)
    const failure = await runAgent(["never reached"], { tools: [ai.mcp({ name: "flaky", url: server.url })] }).catch(
      (error: unknown) => error,
    );
    expect(McpServerError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toMatch(
      new RegExp(`^MCP server "flaky" \\(${server.url.replace(/[.]/g, "\\.")}\\): could not connect: .*ECONNREFUSED`),
    );
    const back = await startHttpMcpServer({}, { port: server.port });
    try {
      const again = await runAgent([{ toolCalls: [call("lookup_exercise", { name: "lunges" })] }, "Back."], {
        tools: [cached],
      });
      expect(again.result.toolCalls).toMatchObject([
        { status: "ok", output: { content: [{ text: "lunges: a lower-body exercise" }] } },
      ]);
    } finally {
      await back.close();
      await cached.close();
    }
  });

  it("a server that speaks only the older HTTP+SSE transport is reached through the SDK's SSE fallback", async () => {
    const sse = await startSseMcpServer();
    const toolset = ai.mcp({ name: "legacy", url: sse.url });
    try {
      const { result } = await runAgent([{ toolCalls: [call("lookup_exercise", { name: "lunges" })] }, "Done."], {
        tools: [toolset],
      });
      expect(result.toolCalls).toMatchObject([
        { status: "ok", source: "mcp:legacy", output: { content: [{ text: "lunges: a lower-body exercise" }] } },
      ]);
    } finally {
      await toolset.close();
      await sse.close();
    }
  });

  it("actWhenAsked.requiredTools may name an MCP tool: an answer that only offers the change is re-prompted", async () => {
    const { result } = await runAgent(
      [
        "Want me to look lunges up?",
        { toolCalls: [call("lookup_exercise", { name: "lunges" })] },
        "Lunges are a lower-body exercise.",
      ],
      {
        input: "Look up lunges",
        actWhenAsked: { intents: ["look up"], requiredTools: ["lookup_exercise"] },
      },
    );
    expect(result.trace.filter((e) => e.type === "reprompt").map((e) => (e as { kind: string }).kind)).toEqual([
      "act-when-asked",
    ]);
    expect(result.toolCalls).toMatchObject([{ name: "lookup_exercise", status: "ok", source: "mcp:library" }]);
    expect(result.reply).toBe("Lunges are a lower-body exercise.");
  });

  it("a session lists its MCP tools once and uses them for every message", async () => {
    const model = await startScriptedModel([
      { toolCalls: [call("lookup_exercise", { name: "lunges" })] },
      "Lunges: legs.",
      { toolCalls: [call("gym__lookup_exercise", { name: "planks" })] },
      "Planks: core.",
    ]);
    const agent = ai.agent({
      name: "mcp-session",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [library, gym()],
    });
    const { replies, calls, history } = await withWorker(harness, [agent], async ({ taskQueue }) => {
      const session = agent.session(`mcp-session-${Date.now()}`, { client: harness.client, taskQueue });
      const first = await session.send("What are lunges?");
      const second = await session.send("And planks?");
      await session.end();
      const history = await harness.client.workflow.getHandle(first.workflowId).fetchHistory();
      return { replies: [first.reply, second.reply], calls: [...first.toolCalls, ...second.toolCalls], history };
    });
    expect(replies).toEqual(["Lunges: legs.", "Planks: core."]);
    expect(calls).toMatchObject([
      { source: "mcp:library", status: "ok" },
      { source: "mcp:gym", status: "ok" },
    ]);
    expect(activitySummaries(history).filter((s) => s.startsWith("mcp list"))).toEqual([
      "mcp list tools (library, gym)",
    ]);
    await model.close();
  });

  it("eval scorers count MCP calls: requiredToolCalled may name an MCP tool", async () => {
    const model = await startScriptedModel(({ body }) => {
      const user = String(body.messages.find((m) => m.role === "user")?.content);
      const answered = body.messages.some((m) => m.role === "tool");
      if (user.includes("look up") && !answered) return { toolCalls: [call("lookup_exercise", { name: "lunges" })] };
      return "Lunges work the legs.";
    });
    const agent = ai.agent({
      name: "mcp-eval",
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      tools: [library],
    });
    const report = await withWorker(harness, [agent], ({ taskQueue }) =>
      agent.eval({
        cases: [
          { name: "calls the MCP tool", input: "Please look up lunges" },
          { name: "answers without it", input: "What are lunges?" },
        ],
        scorers: [ai.eval.requiredToolCalled({ tools: ["lookup_exercise"] })],
        client: harness.client,
        taskQueue,
      }),
    );
    expect(report.cases.map((c) => [c.case, c.passed, c.failed])).toEqual([
      ["calls the MCP tool", 1, 0],
      ["answers without it", 0, 1],
    ]);
    await model.close();
  });
});
