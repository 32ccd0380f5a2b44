/**
 * Issue 22, items 1-3 on real runs: cases read from finished runs (by id, by query, across
 * continue-as-new, encrypted, sessions), case files, replay with recorded tools, and forks.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@temporalio/client";
import { historyFromJSON, historyToJSON } from "@temporalio/common/lib/proto-utils.js";
import { NativeConnection, Worker } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import {
  ai,
  CaseFileError,
  DatasetError,
  defineScorer,
  encryptedDataConverter,
  ForkError,
  readCases,
  recordedCaseJsonSchema,
  writeCases,
  type Agent,
  type AgentOptions,
  type EvalRecord,
  type RecordedCase,
  type RunResult,
} from "../src/index.js";
import { startDevServer, startScriptedModel, type ScriptedRequest, type ScriptedTurn } from "../src/testing/index.js";
import { CONTINUE_AS_NEW_SOON } from "./support/continue-as-new-server.js";
import { createAgentWorker } from "../src/worker.js";
import { keyring, newKey } from "./support/codec-helpers.js";
import { connectHarness, taskQueue, withWorker, type Harness } from "./support/harness.js";

const FIXTURES = new URL("./fixtures/histories/", import.meta.url);

let harness: Harness;
beforeAll(async () => {
  harness = await connectHarness();
});
afterAll(() => harness.close());

/** A tool that counts its executions and returns the count, so a recorded output names the execution that made it. */
function countingTool() {
  const counter = { executions: 0 };
  const tool = ai.tool({
    name: "update_plan",
    input: z.object({ from: z.string(), to: z.string() }),
    execute: async ({ to }) => ({ ok: true, swappedTo: to, execution: ++counter.executions }),
  });
  return { tool, counter };
}

const swap = (to = "lunges"): ScriptedTurn => ({
  toolCalls: [{ name: "update_plan", arguments: { from: "squats", to } }],
});

/** Acts on "swap ... for <x>" (after the tool result, answers "Done."), offers on anything else. */
function coachModel(reply = "Done.") {
  return ({ body }: ScriptedRequest): ScriptedTurn => {
    const input = String(body.messages.findLast((m) => m.role === "user")?.content ?? "");
    if (body.messages.at(-1)?.role === "tool") return reply;
    const wanted = /for (\w+)/.exec(typeof input === "string" ? input : "")?.[1];
    if (body.messages.some((m) => m.role === "user" && String(m.content).includes("Audit"))) return "Audited.";
    if (/audit/i.test(input)) return "Audit me.";
    return wanted ? swap(wanted) : "Want me to swap that?";
  };
}

function coach(
  name: string,
  baseURL: string,
  tool: ReturnType<typeof countingTool>["tool"],
  options: Partial<AgentOptions> = {},
): Agent {
  return ai.agent({ name, model: ai.openai("gpt-test", { baseURL }), tools: [tool], ...options });
}

async function replayFresh(histories: unknown[]): Promise<string[]> {
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories(
    { workflowBundle: { codePath: inject("workflowBundlePath") }, replayName: "recorded-runs-replay" },
    histories.map((history, i) => ({ workflowId: `fresh-${i}`, history: historyFromJSON(history) })),
  )) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  return failures;
}

async function historyOf(workflowId: string): Promise<unknown> {
  return JSON.parse(historyToJSON(await harness.client.workflow.getHandle(workflowId).fetchHistory()));
}

describe("ai.eval.casesFromRuns({ workflowIds, query, agent, limit, client, dataConverter, redact })", () => {
  it("reads finished runs by id and by a visibility query: input as sent (content parts), context, reply, trips, usage, tool calls with outputs", async () => {
    const model = await startScriptedModel(coachModel(), { usage: { prompt_tokens: 5, completion_tokens: 2 } });
    const { tool } = countingTool();
    const name = `cases-${randomUUID().slice(0, 8)}`;
    const agent = coach(name, model.baseURL, tool, { contextSchema: z.object({ user: z.string() }) });
    const image = [
      {
        role: "user" as const,
        content: [
          { type: "text" as const, text: "Offer only" },
          { type: "image_url" as const, image_url: { url: "https://example.com/squat.png" } },
        ],
      },
    ];
    try {
      const ids = await withWorker(
        harness,
        [agent],
        async ({ taskQueue }) => {
          const acted = await agent.run("Swap squats for lunges", {
            client: harness.client,
            taskQueue,
            context: { user: "u-1" },
          });
          const offered = await agent.run(image, { client: harness.client, taskQueue, context: { user: "u-2" } });
          return [acted.workflowId, offered.workflowId];
        },
        { searchAttributes: true },
      );
      const byId = await ai.eval.casesFromRuns({ workflowIds: ids, client: harness.client });
      expect(byId.map((c) => c.name)).toEqual(ids);
      expect(byId[0]).toMatchObject({
        input: "Swap squats for lunges",
        context: { user: "u-1" },
        recorded: {
          workflowId: ids[0],
          agent: name,
          agentVersion: agent.version,
          reply: "Done.",
          stopReason: "answered",
          trips: 2,
          usage: { totalTokens: 14 },
          toolCalls: [
            {
              name: "update_plan",
              input: { from: "squats", to: "lunges" },
              output: { ok: true, swappedTo: "lunges", execution: 1 },
              status: "ok",
            },
          ],
        },
      });
      expect(byId[1]).toMatchObject({
        input: image,
        context: { user: "u-2" },
        recorded: { reply: "Want me to swap that?", trips: 1, toolCalls: [] },
      });

      const query = `DurableAgentName = "${name}" AND DurableAgentTrips = 1`;
      await waitForVisibility(query, 1);
      const byQuery = await ai.eval.casesFromRuns({
        query,
        client: harness.client,
        redact: (c) => ({ ...c, context: { user: "redacted" } }),
      });
      expect(byQuery.map((c) => [c.name, c.context])).toEqual([[ids[1], { user: "redacted" }]]);
      await waitForVisibility(`DurableAgentName = "${name}"`, 2);
      expect(
        await ai.eval.casesFromRuns({ query: `DurableAgentName = "${name}"`, client: harness.client, limit: 1 }),
      ).toHaveLength(1);
      expect(
        await ai.eval.casesFromRuns({
          query: `DurableAgentName = "${name}"`,
          client: harness.client,
          agent: "someone-else",
        }),
      ).toEqual([]);
    } finally {
      await model.close();
    }
  });

  it("a run that has not finished, or is not an agent run, is a DatasetError naming it; no runs chosen is an EvalOptionsError", async () => {
    await expect(ai.eval.casesFromRuns({ client: harness.client })).rejects.toThrow(
      /give workflowIds, a query or an agent/,
    );
    const { tool } = countingTool();
    const agent = coach("cases-unfinished", "http://127.0.0.1:9/v1", tool);
    const handle = await agent.start("Swap squats for lunges", {
      client: harness.client,
      taskQueue: taskQueue(),
      noWorkerWarningAfter: false,
    }); // no worker: it never finishes
    const error = await ai.eval
      .casesFromRuns({ workflowIds: [handle.workflowId], client: harness.client })
      .catch((e: unknown) => e);
    expect(DatasetError.isInstance(error)).toBe(true);
    expect((error as DatasetError).message).toMatch(new RegExp(`${handle.workflowId}.*has not finished`));
    await handle.workflow.terminate();
    const terminated = await ai.eval
      .casesFromRuns({ workflowIds: [handle.workflowId], client: harness.client })
      .catch((e: unknown) => e);
    expect((terminated as Error).message).toMatch(
      /did not complete \(its last event is EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED\)/,
    );
  });

  it("two reads that fail at once (workflow ids that do not exist): one DatasetError naming the first, nothing left in flight, no unhandled rejection", async () => {
    let inFlight = 0;
    let describes = 0;
    // Counts the reads' first calls (each read starts with describe), so the test sees whether any is still running when the error arrives.
    const client = new Client({
      connection: harness.client.connection,
      interceptors: {
        workflow: [
          { describe: async (input, next) => (inFlight++, describes++, next(input).finally(() => inFlight--)) },
        ],
      },
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const ids = [`missing-${randomUUID()}`, `missing-${randomUUID()}`, `missing-${randomUUID()}`];
      const error = await ai.eval.casesFromRuns({ workflowIds: ids, client, concurrency: 2 }).catch((e: unknown) => e);
      expect(inFlight).toBe(0); // every read started was waited for
      expect(describes).toBe(2); // the third read never started: the first failure stops new reads
      expect(DatasetError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ name: "DatasetError", workflowId: ids[0] });
      expect((error as Error).message).toBe(
        `Cannot read run ${ids[0]} as an eval case: there is no such workflow (check the id and the namespace).`,
      );
      await new Promise((resolve) => setImmediate(resolve)); // a rejection nobody handled is reported after this turn
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("agent (with a query, or alone) is filtered by the server: another agent's runs are not read; with workflowIds it is checked after reading", async () => {
    // The other agent's run is encrypted: reading its history without the codec would fail, so an
    // answer at all shows the server left it out.
    const dataConverter = encryptedDataConverter(keyring({ k1: newKey() }, "k1"));
    const model = await startScriptedModel(coachModel());
    const { tool } = countingTool();
    const suffix = randomUUID().slice(0, 8);
    const mine = coach(`filter-mine-${suffix}`, model.baseURL, tool);
    const other = coach(`filter-other-${suffix}`, model.baseURL, tool);
    try {
      const kept = await withWorker(
        harness,
        [mine],
        async ({ taskQueue }) => [
          await agentRun(mine, "Swap squats for lunges", taskQueue),
          await agentRun(mine, "Swap squats for rows", taskQueue),
        ],
        { searchAttributes: true },
      );
      const encrypted = new Client({ connection: harness.client.connection, dataConverter });
      const skipped = await withWorker(
        harness,
        [other],
        ({ taskQueue }) => other.run("Swap squats for dips", { client: encrypted, taskQueue }),
        { dataConverter, searchAttributes: true },
      );
      const both = `DurableAgentName IN ("${mine.name}", "${other.name}")`;
      await waitForVisibility(both, 3);
      await expect(ai.eval.casesFromRuns({ query: both, client: harness.client })).rejects.toThrow(); // without the filter, the other agent's history is read
      const byQuery = await ai.eval.casesFromRuns({ query: both, agent: mine.name, client: harness.client });
      expect(byQuery.map((c) => c.name).sort()).toEqual(kept.map((r) => r.workflowId).sort());
      expect(byQuery.every((c) => c.recorded.agent === mine.name)).toBe(true);
      const alone = await ai.eval.casesFromRuns({ agent: mine.name, client: harness.client, limit: 1 });
      expect(alone).toHaveLength(1);
      expect(kept.map((r) => r.workflowId)).toContain(alone[0]!.name);
      const byIds = await ai.eval.casesFromRuns({
        workflowIds: [kept[0]!.workflowId, skipped.workflowId],
        agent: other.name,
        client: harness.client,
        dataConverter,
      });
      expect(byIds.map((c) => [c.name, c.recorded.agent])).toEqual([[skipped.workflowId, other.name]]);
    } finally {
      await model.close();
    }
  });

  it("reads histories encrypted by the worker's codec, given its dataConverter (without it, it cannot)", async () => {
    const dataConverter = encryptedDataConverter(keyring({ k1: newKey() }, "k1"));
    const client = new Client({ connection: harness.client.connection, dataConverter });
    const model = await startScriptedModel(coachModel());
    const { tool } = countingTool();
    const agent = coach("cases-encrypted", model.baseURL, tool);
    try {
      const result = await withWorker(
        harness,
        [agent],
        ({ taskQueue }) => agent.run("Swap squats for rows", { client, taskQueue }),
        { dataConverter },
      );
      const [read] = await ai.eval.casesFromRuns({
        workflowIds: [result.workflowId],
        client: harness.client,
        dataConverter,
      });
      expect(read).toMatchObject({
        input: "Swap squats for rows",
        recorded: { reply: "Done.", toolCalls: [{ output: { swappedTo: "rows" } }] },
      });
      await expect(
        ai.eval.casesFromRuns({ workflowIds: [result.workflowId], client: harness.client }),
      ).rejects.toThrow();
    } finally {
      await model.close();
    }
  });

  it("sessions: each message is a case whose messages hold the conversation before it", async () => {
    const model = await startScriptedModel(coachModel());
    const { tool } = countingTool();
    const agent = coach("cases-session", model.baseURL, tool);
    try {
      const id = `s-${randomUUID()}`;
      const workflowId = await withWorker(harness, [agent], async ({ taskQueue }) => {
        const session = agent.session(id, { client: harness.client, taskQueue });
        await session.send("Swap squats for lunges");
        await session.send("And the rest?");
        await session.end();
        return session.workflowId;
      });
      const cases = await ai.eval.casesFromRuns({ workflowIds: [workflowId], client: harness.client });
      expect(cases.map((c) => [c.name, c.input, c.messages?.length])).toEqual([
        [`${workflowId}#1`, "Swap squats for lunges", 0],
        [`${workflowId}#2`, "And the rest?", 4],
      ]);
      expect(cases[1]!.messages!.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
      expect(cases[1]!.recorded).toMatchObject({ reply: "Want me to swap that?", toolCalls: [] });
    } finally {
      await model.close();
    }
  });

  it("follows continue-as-new chains: the input is the first run's, the result the last's", async () => {
    const server = await startDevServer({ extraArgs: CONTINUE_AS_NEW_SOON });
    const connection = await NativeConnection.connect({ address: server.address });
    const steps = Array.from({ length: 8 }, (_, i) => swap(`move${i}`));
    const model = await startScriptedModel([...steps, "All swapped."]);
    const { tool } = countingTool();
    const agent = coach("cases-can", model.baseURL, tool, { maxTrips: 20 });
    try {
      const queue = taskQueue();
      const worker = await createAgentWorker({
        agents: [agent],
        connection,
        taskQueue: queue,
        workflowBundle: { codePath: inject("workflowBundlePath") },
      });
      const result = await worker.runUntil(
        agent.run("Swap squats for everything", { client: server.env.client, taskQueue: queue }),
      );
      const description = await server.env.client.workflow.getHandle(result.workflowId).describe();
      expect(description.runId).not.toBe((description.raw.workflowExecutionInfo as { firstRunId?: string }).firstRunId); // it did continue as new
      const [read] = await ai.eval.casesFromRuns({ workflowIds: [result.workflowId], client: server.env.client });
      expect(read).toMatchObject({
        input: "Swap squats for everything",
        recorded: { reply: "All swapped.", trips: 9 },
      });
      expect(read!.recorded.toolCalls).toHaveLength(8);
    } finally {
      await model.close();
      await connection.close();
      await server.stop();
    }
  });
});

async function waitForVisibility(query: string, count: number): Promise<void> {
  // Visibility is eventually consistent, and lists a run as started before it lists it as completed
  // (what casesFromRuns reads): ask until the server lists them completed.
  const completed = `(${query}) AND ExecutionStatus = "Completed"`;
  for (let i = 0; i < 2400; i++) {
    if ((await harness.client.workflow.count(completed)).count >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`visibility never listed ${count} run(s) for ${query}`);
}

describe("writeCases / readCases", () => {
  const recorded: RecordedCase = {
    name: "coach-1",
    input: "Swap squats for lunges",
    recorded: {
      workflowId: "coach-1",
      runId: "r",
      agent: "coach",
      reply: "Done.",
      stopReason: "answered",
      trips: 2,
      toolCalls: [{ name: "update_plan", input: { from: "squats", to: "lunges" }, output: { ok: true }, status: "ok" }],
    },
  };

  it("write JSON Lines (one case a line) that read back equal", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "cases-")), "sub", "cases.jsonl");
    await writeCases(file, [recorded, { ...recorded, name: "coach-2" }]);
    expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(2);
    expect(await readCases(file)).toEqual([recorded, { ...recorded, name: "coach-2" }]);
  });

  it("a line that is not a case fails with the line number and the field", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "cases-")), "bad.jsonl");
    const bad = {
      ...recorded,
      recorded: { ...recorded.recorded, toolCalls: [{ name: "update_plan", input: {}, status: "maybe" }] },
    };
    writeFileSync(file, [JSON.stringify(recorded), "", JSON.stringify(bad)].join("\n"));
    const error = await readCases(file).catch((e: unknown) => e);
    expect(CaseFileError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ line: 3, field: "recorded.toolCalls.0.status" });
    expect((error as Error).message).toMatch(/bad\.jsonl:3: field `recorded\.toolCalls\.0\.status`/);
    writeFileSync(file, "{ nope");
    await expect(readCases(file)).rejects.toThrow(/bad\.jsonl:1: not JSON/);
  });

  it("docs/recorded-case.schema.json is the case schema", () => {
    expect(JSON.parse(readFileSync("docs/recorded-case.schema.json", "utf8"))).toEqual(recordedCaseJsonSchema());
  });
});

describe('agent.eval({ cases, scorers, tools: "recorded", unmatchedToolCalls })', () => {
  it("a replay eval of 2 recorded runs executes the tool 0 times, and scorers see the recorded outputs", async () => {
    const model = await startScriptedModel(coachModel());
    const { tool, counter } = countingTool();
    const agent = coach("replay-coach", model.baseURL, tool);
    try {
      await withWorker(harness, [agent], async ({ taskQueue }) => {
        const runs = [
          await agent.run("Swap squats for lunges", { client: harness.client, taskQueue }),
          await agent.run("Swap squats for rows", { client: harness.client, taskQueue }),
        ];
        expect(counter.executions).toBe(2);
        const cases = await ai.eval.casesFromRuns({
          workflowIds: runs.map((r) => r.workflowId),
          client: harness.client,
        });
        const seen: unknown[] = [];
        const sawRecordedOutput = defineScorer("sawRecordedOutput", (record) => {
          seen.push(record.toolCalls.map((c) => c.output));
          return { pass: record.toolCalls.every((c) => c.replayed === true) };
        });
        const report = await agent.eval({
          cases,
          scorers: [sawRecordedOutput],
          tools: "recorded",
          client: harness.client,
          taskQueue,
        });
        expect(counter.executions).toBe(2); // none in the replay
        expect(seen.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([
          [{ ok: true, swappedTo: "lunges", execution: 1 }],
          [{ ok: true, swappedTo: "rows", execution: 2 }],
        ]);
        expect(report.rows.map((r) => r.status)).toEqual(["pass", "pass"]);
        expect(report.runs.map((r) => [r.replay, r.toolCalls.map((c) => c.replayed)])).toEqual([
          [{ matched: 1, unmatched: 0 }, [true]],
          [{ matched: 1, unmatched: 0 }, [true]],
        ]);
        const replayed = await harness.client.workflow.getHandle(report.runs[0]!.workflowId).fetchHistory();
        if (process.env.RECORD_FIXTURES)
          writeFileSync(
            new URL("recorded-tools-replay.json", FIXTURES),
            JSON.stringify(JSON.parse(historyToJSON(replayed)), null, 1) + "\n",
          );
        expect(await replayFresh([JSON.parse(historyToJSON(replayed))])).toEqual([]);
      });
    } finally {
      await model.close();
    }
  });

  it('unmatched calls: "refuse" (a refusal saying the call is not in the recording), "execute" (the real tool), "fail" (an infrastructure error naming the call)', async () => {
    const recordModel = await startScriptedModel(coachModel());
    const { tool, counter } = countingTool();
    const recorder = coach("unmatched-coach", recordModel.baseURL, tool);
    // The new model asks for another swap than the recording holds.
    const newModel = await startScriptedModel(({ body }) =>
      body.messages.at(-1)?.role === "tool" ? "Done." : swap("burpees"),
    );
    const replayer = coach("unmatched-coach", newModel.baseURL, tool);
    try {
      const recorded = await withWorker(harness, [recorder], ({ taskQueue }) =>
        agentRun(recorder, "Swap squats for lunges", taskQueue),
      );
      const cases = await ai.eval.casesFromRuns({ workflowIds: [recorded.workflowId], client: harness.client });
      const scorer = defineScorer("any", () => ({ pass: true }));
      await withWorker(harness, [replayer], async ({ taskQueue }) => {
        const base = { cases, scorers: [scorer], tools: "recorded" as const, client: harness.client, taskQueue };
        const refused = await replayer.eval(base);
        expect(refused.runs[0]).toMatchObject({
          replay: { matched: 0, unmatched: 1 },
          toolCalls: [
            { name: "update_plan", status: "refused", reason: expect.stringMatching(/not in the recording/) },
          ],
        });
        expect(counter.executions).toBe(1);
        const executed = await replayer.eval({ ...base, unmatchedToolCalls: "execute" });
        expect(executed.runs[0]).toMatchObject({ replay: { matched: 0, unmatched: 1 }, toolCalls: [{ status: "ok" }] });
        expect(counter.executions).toBe(2);
        const failed = await replayer.eval({ ...base, unmatchedToolCalls: "fail" });
        expect(failed.runs[0]).toMatchObject({
          status: "infrastructure-error",
          error: {
            name: "UnmatchedToolCallError",
            message: expect.stringMatching(/update_plan\(\{"from":"squats","to":"burpees"\}\) is not in the recording/),
          },
        });
        expect(counter.executions).toBe(2);
        await expect(replayer.eval({ ...base, cases: [{ name: "plain", input: "hi" }] })).rejects.toThrow(
          /cases\[0\]\.recorded/,
        );
      });
    } finally {
      await recordModel.close();
      await newModel.close();
    }
  });

  it("backstops' run is not called in a replay: the recorded prompt is used, and the trace says so", async () => {
    const model = await startScriptedModel(coachModel());
    const { tool } = countingTool();
    const ran: string[] = [];
    const backstops: AgentOptions["backstops"] = [
      {
        name: "audit",
        detect: (t) => t.reply === "Audit me.",
        run: () => (ran.push("audit"), { prompt: "Audit the plan." }),
      },
    ];
    const agent = coach("replay-backstop", model.baseURL, tool, { backstops });
    try {
      await withWorker(harness, [agent], async ({ taskQueue }) => {
        const recorded = await agentRun(agent, "Please audit my plan", taskQueue);
        expect(ran).toEqual(["audit"]);
        const cases = await ai.eval.casesFromRuns({ workflowIds: [recorded.workflowId], client: harness.client });
        expect(cases[0]!.recorded.backstops).toEqual([{ name: "audit", prompt: "Audit the plan." }]);
        const traces: unknown[] = [];
        const scorer = defineScorer("trace", (record) => (traces.push(record.trace), { pass: true }));
        await agent.eval({ cases, scorers: [scorer], tools: "recorded", client: harness.client, taskQueue });
        expect(ran).toEqual(["audit"]); // not run again
        expect(traces[0]).toEqual(
          expect.arrayContaining([
            expect.objectContaining({
              type: "backstop",
              name: "audit",
              outcome: "prompted",
              detail: "Audit the plan.",
              replayed: true,
            }),
            expect.objectContaining({ type: "reprompt", kind: "backstop", text: "Audit the plan." }),
          ]),
        );
      });
    } finally {
      await model.close();
    }
  });
  it("a backstop that did not run in the recording does not run in a replay: its run is not called, and the trace says so", async () => {
    // The recording: the model offers, so the audit backstop is not detected and never runs.
    const recordModel = await startScriptedModel(() => "Want me to swap that?");
    // The replay: the new model asks for an audit, so the backstop is detected.
    const replayModel = await startScriptedModel(coachModel());
    const { tool } = countingTool();
    const ran: string[] = [];
    const backstops: AgentOptions["backstops"] = [
      {
        name: "audit",
        detect: (t) => t.reply === "Audit me.",
        run: () => (ran.push("audit"), { prompt: "Audit the plan." }),
      },
    ];
    const recorder = coach("replay-backstop-skipped", recordModel.baseURL, tool, { backstops });
    const replayer = coach("replay-backstop-skipped", replayModel.baseURL, tool, { backstops });
    try {
      const recorded = await withWorker(harness, [recorder], ({ taskQueue }) =>
        agentRun(recorder, "Please audit my plan", taskQueue),
      );
      expect(recorded.trace.filter((e) => e.type === "backstop")).toEqual([]);
      const cases = await ai.eval.casesFromRuns({ workflowIds: [recorded.workflowId], client: harness.client });
      expect(cases[0]!.recorded.backstops).toEqual([]);
      const records: EvalRecord[] = [];
      const scorer = defineScorer("record", (record) => (records.push(record), { pass: true }));
      await withWorker(harness, [replayer], ({ taskQueue }) =>
        replayer.eval({ cases, scorers: [scorer], tools: "recorded", client: harness.client, taskQueue }),
      );
      expect(ran).toEqual([]); // not called in the recording, nor in the replay
      const [run] = records;
      expect(run).toMatchObject({ reply: "Audit me.", stopReason: "answered", trips: 1 });
      expect(run!.trace.filter((e) => e.type === "backstop")).toEqual([
        { trip: 1, type: "backstop", name: "audit", phase: "after", outcome: "detected" },
        {
          trip: 1,
          type: "backstop",
          name: "audit",
          phase: "after",
          outcome: "skipped",
          detail: "playback: not run (it did not run in the recording)",
          replayed: true,
        },
      ]);
      expect(run!.trace.filter((e) => e.type === "reprompt")).toEqual([]); // skipped: no prompt to send
    } finally {
      await recordModel.close();
      await replayModel.close();
    }
  });
});

async function agentRun(agent: Agent, input: string, queue: string): Promise<RunResult> {
  return agent.run(input, { client: harness.client, taskQueue: queue });
}

describe("ai.fork(workflowId, { atTrip, agent, client, taskQueue })", () => {
  it("fork at trip 2 of a run whose trip 1 called a tool: the tool ran once in all, the fork's first request holds the recorded result, its reply is the new model's", async () => {
    const oldModel = await startScriptedModel(coachModel("Old reply."));
    const newModel = await startScriptedModel(coachModel("New reply."));
    const { tool, counter } = countingTool();
    const before = coach("fork-coach", oldModel.baseURL, tool, { maxTrips: 3 });
    const now = coach("fork-coach", newModel.baseURL, tool, { maxTrips: 3, instructions: "Be brief." });
    try {
      const recorded = await withWorker(harness, [before], ({ taskQueue }) =>
        agentRun(before, "Swap squats for lunges", taskQueue),
      );
      expect(recorded).toMatchObject({ trips: 2, reply: "Old reply." });
      const fork = await withWorker(
        harness,
        [now],
        async ({ taskQueue }) => {
          const handle = await ai.fork(recorded.workflowId, { atTrip: 2, client: harness.client, taskQueue });
          return { result: await handle.result(), description: await handle.workflow.describe() };
        },
        { searchAttributes: true },
      );
      const { result } = fork;
      expect(counter.executions).toBe(1);
      expect(newModel.requests).toHaveLength(1);
      const first = newModel.requests[0]!.body.messages;
      expect(first.at(-1)).toMatchObject({
        role: "tool",
        content: JSON.stringify({ ok: true, swappedTo: "lunges", execution: 1 }),
      });
      expect(first[0]).toMatchObject({ role: "system", content: "Be brief." });
      expect(result).toMatchObject({
        reply: "New reply.",
        trips: 2,
        forkedFrom: { workflowId: recorded.workflowId, runId: recorded.runId, atTrip: 2 },
        toolCalls: [{ name: "update_plan", status: "ok" }],
      });
      expect(result.trace).toContainEqual({
        trip: 1,
        type: "fork",
        from: { workflowId: recorded.workflowId, runId: recorded.runId, atTrip: 2 },
        agent: "fork-coach",
      });
      expect(fork.description.searchAttributes.DurableAgentForkedFrom).toEqual([recorded.workflowId]);
      const history = await historyOf(result.workflowId);
      if (process.env.RECORD_FIXTURES)
        writeFileSync(new URL("fork-at-trip-2.json", FIXTURES), JSON.stringify(history, null, 1) + "\n");
      expect(await replayFresh([history])).toEqual([]);
    } finally {
      await oldModel.close();
      await newModel.close();
    }
  });

  it("maxTrips counts the recorded trips; budgets used before the fork stay used; a trip past the run is a ForkError", async () => {
    const offers = await startScriptedModel(() => "Want me to swap that?");
    const { tool } = countingTool();
    const actWhenAsked = { intents: [/\bswap\b/i], requiredTools: ["update_plan"], maxReprompts: 1 };
    const before = coach("fork-budget", offers.baseURL, tool, { maxTrips: 3, actWhenAsked });
    try {
      await withWorker(harness, [before], async ({ taskQueue }) => {
        const recorded = await agentRun(before, "Swap squats", taskQueue);
        expect(recorded.trips).toBe(2); // offer, re-prompt, offer
        const handle = await ai.fork(recorded.workflowId, { atTrip: 2, client: harness.client, taskQueue });
        const result = await handle.result();
        // The re-prompt was spent before trip 2: none is sent again, and trip 2 is the fork's only model call.
        expect(result.trips).toBe(2);
        expect(result.trace.filter((e) => e.type === "reprompt")).toHaveLength(1);
        await expect(ai.fork(recorded.workflowId, { atTrip: 3, client: harness.client, taskQueue })).rejects.toThrow(
          ForkError,
        );
        await expect(ai.fork(recorded.workflowId, { atTrip: 0, client: harness.client, taskQueue })).rejects.toThrow(
          /atTrip must be a positive integer/,
        );
      });
    } finally {
      await offers.close();
    }
  });

  it("a fork whose whole conversation hits maxTrips stops with max-trips, counting the recorded trips", async () => {
    const oldModel = await startScriptedModel([swap("lunges"), swap("rows"), "Done."]);
    const newModel = await startScriptedModel(() => swap("dips")); // never answers: calls the tool every trip
    const { tool, counter } = countingTool();
    const before = coach("fork-max-trips", oldModel.baseURL, tool, { maxTrips: 3 });
    const now = coach("fork-max-trips", newModel.baseURL, tool, { maxTrips: 3 });
    try {
      const recorded = await withWorker(harness, [before], ({ taskQueue }) =>
        agentRun(before, "Swap squats for lunges", taskQueue),
      );
      expect(recorded).toMatchObject({ trips: 3, stopReason: "answered" });
      expect(counter.executions).toBe(2);
      const result = await withWorker(harness, [now], async ({ taskQueue }) =>
        (await ai.fork(recorded.workflowId, { atTrip: 3, client: harness.client, taskQueue })).result(),
      );
      // Trips 1-2 are the recording's; trip 3, the fork's only model call, uses the last of maxTrips 3.
      expect(newModel.requests).toHaveLength(1);
      expect(result).toMatchObject({ stopReason: "max-trips", trips: 3 });
      expect(result.toolCalls.map((c) => [c.trip, (c.input as { to: string }).to])).toEqual([
        [1, "lunges"],
        [2, "rows"],
        [3, "dips"],
      ]);
      expect(counter.executions).toBe(3); // only the fork's own call ran
    } finally {
      await oldModel.close();
      await newModel.close();
    }
  });

  it("a backstop that ran before atTrip is not run again on a fork, though the new model triggers it", async () => {
    const oldModel = await startScriptedModel(coachModel());
    const newModel = await startScriptedModel(() => "Audit me.");
    const { tool } = countingTool();
    let runs = 0;
    const backstops: AgentOptions["backstops"] = [
      { name: "audit", detect: (t) => t.reply === "Audit me.", run: () => (runs++, { prompt: "Audit the plan." }) },
    ];
    const before = coach("fork-backstop", oldModel.baseURL, tool, { backstops });
    const now = coach("fork-backstop", newModel.baseURL, tool, { backstops });
    try {
      const recorded = await withWorker(harness, [before], ({ taskQueue }) =>
        agentRun(before, "Please audit my plan", taskQueue),
      );
      expect(recorded).toMatchObject({ reply: "Audited.", trips: 2 }); // trip 1 "Audit me." → the backstop ran and re-prompted
      expect(runs).toBe(1);
      const result = await withWorker(harness, [now], async ({ taskQueue }) =>
        (await ai.fork(recorded.workflowId, { atTrip: 2, client: harness.client, taskQueue })).result(),
      );
      expect(runs).toBe(1); // at most once per run, across the fork
      expect(result).toMatchObject({ reply: "Audit me.", stopReason: "answered", trips: 2 });
      expect(result.trace.filter((e) => e.type === "backstop" && e.trip >= 2)).toEqual([]);
      expect(result.trace.filter((e) => e.type === "reprompt").map((e) => e.trip)).toEqual([1]); // the recorded one only
    } finally {
      await oldModel.close();
      await newModel.close();
    }
  });

  it("ai.fork(id, { atTrip, agent }) goes on with another agent definition, which answers", async () => {
    const oldModel = await startScriptedModel(coachModel("Old reply."));
    const otherModel = await startScriptedModel(() => "Other coach here.");
    const { tool, counter } = countingTool();
    const before = coach("fork-from", oldModel.baseURL, tool);
    const other = coach("fork-other", otherModel.baseURL, tool, { instructions: "You are the other coach." });
    try {
      const recorded = await withWorker(harness, [before], ({ taskQueue }) =>
        agentRun(before, "Swap squats for lunges", taskQueue),
      );
      expect(recorded).toMatchObject({ reply: "Old reply.", trips: 2 });
      const result = await withWorker(harness, [other], async ({ taskQueue }) =>
        (
          await ai.fork(recorded.workflowId, { atTrip: 2, agent: "fork-other", client: harness.client, taskQueue })
        ).result(),
      );
      expect(result).toMatchObject({
        reply: "Other coach here.",
        stopReason: "answered",
        trips: 2,
        forkedFrom: { workflowId: recorded.workflowId, atTrip: 2 },
      });
      expect(result.trace).toContainEqual({
        trip: 1,
        type: "fork",
        from: { workflowId: recorded.workflowId, runId: recorded.runId, atTrip: 2 },
        agent: "fork-other",
      });
      expect(otherModel.requests).toHaveLength(1);
      expect(otherModel.requests[0]!.body.messages[0]).toMatchObject({
        role: "system",
        content: "You are the other coach.",
      });
      expect(otherModel.requests[0]!.body.messages.at(-1)).toMatchObject({
        role: "tool",
        content: JSON.stringify({ ok: true, swappedTo: "lunges", execution: 1 }),
      });
      expect(oldModel.requests).toHaveLength(2); // the recording's; none from the fork
      expect(counter.executions).toBe(1);
    } finally {
      await oldModel.close();
      await otherModel.close();
    }
  });
});
