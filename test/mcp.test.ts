/**
 * Issue 14: MCP servers' tools as durable activities. Real MCP servers built with the official SDK
 * (test/fixtures/mcp): one over stdio started by the worker, one over Streamable HTTP on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, AgentOptionsError, McpServerError, type RunHandle, type StreamedRunEvent } from "../src/index.js";
import { startScriptedModel, type ScriptedTurn } from "../src/testing/index.js";
import { startHttpMcpServer, type HttpMcpFixture } from "./fixtures/mcp/http-server.js";
import { activityDurations, activitySummaries, stdioToolset } from "./mcp-helpers.js";
import { connectHarness, withWorker, type Harness } from "./harness.js";

let harness: Harness;
let http: HttpMcpFixture;
let cancelled: string[] = [];
let longCallStarted: () => void = () => undefined;
const library = stdioToolset();
const gym = () => ai.mcp({ name: "gym", url: http.url, prefix: true });

beforeAll(async () => {
  harness = await connectHarness();
  http = await startHttpMcpServer({ onCancelled: (tool) => cancelled.push(tool), onLongCallStarted: () => longCallStarted() });
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
async function runAgent(script: ScriptedTurn[], options: Partial<Parameters<typeof ai.agent>[0]> & { input?: string } = {}) {
  const model = await startScriptedModel(script);
  const { input = "Swap squats for lunges", ...agentOptions } = options;
  const agent = ai.agent({ name: "mcp-coach", model: ai.openai("gpt-test", { baseURL: model.baseURL }), tools: [library, gym(), updatePlan], ...agentOptions });
  try {
    return await withWorker(harness, [agent], async ({ taskQueue }) => {
      const handle = await agent.start(input, { client: harness.client, taskQueue });
      const result = await handle.result();
      return { result, requests: model.requests, history: await handle.workflow.fetchHistory() };
    });
  } finally {
    await model.close();
  }
}

const call = (name: string, args: unknown = {}) => ({ name, arguments: args });

describe("an agent with MCP tools", () => {
  it("uses a stdio server, an HTTP server and an ai.tool in one run: each MCP call is a tool.execute activity naming its server", async () => {
    const { result, requests, history } = await runAgent([
      { toolCalls: [call("lookup_exercise", { name: "lunges" }), call("gym__lookup_exercise", { name: "step-ups" }), call("update_plan", { from: "squats", to: "lunges" })] },
      "Swapped squats for lunges.",
    ]);
    expect(result).toMatchObject({ stopReason: "answered", reply: "Swapped squats for lunges.", trips: 2 });
    expect(result.toolCalls).toMatchObject([
      { name: "lookup_exercise", source: "mcp:library", status: "ok", trip: 1, input: { name: "lunges" }, output: { content: [{ type: "text", text: "lunges: a lower-body exercise" }] } },
      { name: "gym__lookup_exercise", source: "mcp:gym", status: "ok", output: { content: [{ type: "text", text: "step-ups: a lower-body exercise" }] } },
      { name: "update_plan", status: "ok", output: { ok: true } },
    ]);
    expect(result.toolCalls[2]).not.toHaveProperty("source");
    // The model sees each MCP tool under its own name (or the prefixed one), with its own description and JSON schema.
    const offered = requests[0]!.body.tools as Array<{ function: { name: string; description?: string; parameters: { properties?: Record<string, unknown>; required?: string[] } } }>;
    const lookup = offered.find((t) => t.function.name === "lookup_exercise")!;
    expect(lookup.function.description).toBe("Looks an exercise up in the library.");
    expect(lookup.function.parameters).toMatchObject({ type: "object", properties: { name: { type: "string", minLength: 1 } }, required: ["name"] });
    expect(offered.map((t) => t.function.name)).toEqual(expect.arrayContaining(["update_plan", "lookup_exercise", "gym__lookup_exercise", "gym__show_chart", "show_chart"]));
    expect(requests[1]!.body.tools).toEqual(requests[0]!.body.tools);
    // The tool message the model gets is the MCP content.
    expect(requests[1]!.body.messages.find((m) => m.role === "tool")?.content).toBe(JSON.stringify({ content: [{ type: "text", text: "lunges: a lower-body exercise" }] }));
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
    console.log(`MCP figures (first run on a worker: stdio server started, HTTP session opened): mcp.list ${listMs} ms; tool.execute stdio ${callMs[0]} ms, http ${callMs[1]} ms, ai.tool ${callMs[2]} ms`);
  });

  it("a second run reuses the worker's connections: the same stdio server process answers (figures for listing and one call logged)", async () => {
    const first = await runAgent([{ toolCalls: [call("whoami")] }, "Done."]);
    const { result, history } = await runAgent([{ toolCalls: [call("whoami"), call("gym__lookup_exercise", { name: "lunges" })] }, "Done."]);
    expect(result.toolCalls.map((c) => c.status)).toEqual(["ok", "ok"]);
    expect(result.toolCalls[0]!.output).toEqual(first.result.toolCalls[0]!.output);
    const durations = activityDurations(history);
    const listMs = durations.find((d) => d.type === "mcp.list")!.ms;
    const callMs = durations.filter((d) => d.type === "tool.execute").map((d) => d.ms);
    console.log(`MCP figures (warm connections): mcp.list of both servers ${listMs} ms; tool.execute stdio ${callMs[0]} ms, http ${callMs[1]} ms`);
  });

  it("isError results and throwing tools are refusals with their text as the reason; invalid input is refused before the call; onToolRefusal applies", async () => {
    const { result, requests } = await runAgent(
      [
        { toolCalls: [call("locked_plan"), call("gym__explode"), call("lookup_exercise", { name: 5 }), call("lookup_exercise", { name: "moonwalks" })] },
        "Sorry, nothing worked.",
        { toolCalls: [call("lookup_exercise", { name: "lunges" })] },
        "Lunges it is.",
      ],
      { onToolRefusal: "retry-once-with-hint" },
    );
    expect(result.toolCalls.slice(0, 4)).toMatchObject([
      { name: "locked_plan", status: "refused", reason: "the plan is locked until Monday", source: "mcp:library" },
      { name: "gym__explode", status: "refused", reason: "kaboom: the exercise database is offline", source: "mcp:gym" },
      { name: "lookup_exercise", status: "refused", reason: expect.stringMatching(/^Invalid input for "lookup_exercise": data\/name must be string/) },
      { name: "lookup_exercise", status: "refused", reason: '"moonwalks" is not in the library' },
    ]);
    expect(result.trace.filter((e) => e.type === "reprompt").map((e) => (e as { kind: string }).kind)).toEqual(["refusal-retry"]);
    expect(requests[2]!.body.messages.at(-1)!.content).toMatch(/lookup_exercise/);
    expect(result).toMatchObject({ stopReason: "answered", reply: "Lunges it is." });
  });

  it("results keep images and resources as MCP content parts up to limits.toolOutputBytes, with a marker beyond it", async () => {
    const { result } = await runAgent([{ toolCalls: [call("show_chart", { bytes: 300 }), call("gym__show_chart", { bytes: 20_000 })] }, "Here is your chart."], { limits: { toolOutputBytes: 4096 } });
    const [small, large] = result.toolCalls as Array<{ output: { content: Array<Record<string, unknown>> } }>;
    expect(small!.output.content.map((p) => p.type)).toEqual(["text", "image", "resource"]);
    expect(small!.output.content[1]).toMatchObject({ type: "image", mimeType: "image/png", data: Buffer.alloc(300, 7).toString("base64") });
    expect(small!.output.content[2]).toMatchObject({ resource: { uri: "plan://week/volume.csv", text: "day,sets\nmon,12\n" } });
    expect(large!.output.content).toEqual([
      { type: "text", text: "Your weekly volume:" },
      { type: "text", text: expect.stringMatching(/^\[durable-agent: image image\/png, \d+ bytes and 1 more part\(s\) omitted, over limits\.toolOutputBytes \(4096\)\]$/) },
    ]);
    expect(Buffer.byteLength(JSON.stringify(large!.output))).toBeLessThanOrEqual(4096);
  });
});
