/**
 * Eval cases with `memory`, with real parts: the suite's Temporal dev server, a worker in this
 * process, the scripted model and embeddings servers, PGlite with pgvector in-process.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ai, EvalOptionsError, readCases, writeCases, type EvalCase, type EvalRecord } from "../src/index.js";
import {
  startScriptedEmbeddings,
  startScriptedModel,
  type ScriptedEmbeddings,
  type ScriptedModel,
  type ScriptedRequest,
} from "../src/testing/index.js";
import { connectHarness, taskQueue, testWorker, type Harness } from "./support/harness.js";
import type { Worker } from "@temporalio/worker";

let harness: Harness;
let model: ScriptedModel;
let embeddings: ScriptedEmbeddings;
let worker: Worker;
let running: Promise<void>;
let coach: ReturnType<typeof ai.agent>;
let sessionCoach: ReturnType<typeof ai.agent>;
const queue = taskQueue();
const store = ai.memory.pglite({ log: () => {} });

const INJURIES = ["knee", "shoulder"] as const;
/** The injuries the memory system message of a request names. */
const injuriesIn = (request: ScriptedRequest) => {
  const memory = request.body.messages.find(
    (m) => m.role === "system" && String(m.content).startsWith("Memory of this user"),
  );
  return INJURIES.filter((injury) => String(memory?.content ?? "").includes(injury));
};

/** The two concurrent cases' first model requests: each answers only once both have arrived. */
let bothInFlight: () => void;
const concurrentRequests = new Promise<void>((resolve) => (bothInFlight = resolve));
let concurrentSeen = 0;

/** The model: spares the injuries its memory message names, else plans a plain leg day. */
async function answer(request: ScriptedRequest): Promise<string> {
  const input = String(request.body.messages.at(-1)?.content ?? "");
  if (input.includes("(concurrent)") && ++concurrentSeen <= 2) {
    if (concurrentSeen === 2) bothInFlight();
    await concurrentRequests;
  }
  const injuries = injuriesIn(request);
  return injuries.length
    ? `A leg day that spares your ${injuries.join(" and ")}.`
    : "A plain leg day: squats and lunges.";
}

beforeAll(async () => {
  harness = await connectHarness();
  [model, embeddings] = await Promise.all([startScriptedModel(answer), startScriptedEmbeddings()]);
  const coachOf = (name: string, scope: "user" | "session") =>
    ai.agent({
      name,
      model: ai.openai("gpt-test", { baseURL: model.baseURL }),
      memory: ai.memory({
        store,
        embedder: createOpenAI({ baseURL: embeddings.baseURL, apiKey: "test" }).embeddingModel("embed-test"),
        workingMemory: { template: "# Athlete\n- Injuries:" },
        recall: { topK: 2, messageRange: 1, scope },
      }),
    });
  coach = coachOf("eval-memory-coach", "user");
  sessionCoach = coachOf("eval-memory-session-coach", "session");
  worker = await testWorker(harness, [coach, sessionCoach], { taskQueue: queue });
  running = worker.run();
});

afterAll(async () => {
  worker?.shutdown();
  await running;
  await Promise.all([model?.close(), embeddings?.close(), store.close()]);
  await harness?.close();
});

const KNEE = "My left knee injury hurts after long runs downhill.";
const SHOULDER = "My right shoulder injury hurts when I press overhead.";

/** The reply spares the injury the case's `expects` names. */
function sparesTheInjury(record: EvalRecord) {
  return { pass: record.reply.includes(record.case.expects as string), reason: record.reply };
}

const users: string[] = [];
/** Every recalled message is one of the case's own memory's, and the one that names its injury is among them. */
function recalledItsOwnMemory(record: EvalRecord) {
  if (!record.memory) return { applicable: false as const, reason: "no memory" };
  users.push(record.memory.user);
  const own = (record.case.memory?.messages ?? []).map((m) => m.content);
  const recalled = record.memory.recalled.map((m) => m.text);
  return {
    pass:
      recalled.every((text) => own.includes(text)) &&
      recalled.some((text) => text.includes(record.case.expects as string)) &&
      String(record.memory.workingMemory).includes(record.case.expects as string),
    reason: JSON.stringify({ recalled, working: record.memory.workingMemory }),
  };
}

const memoryOf = (injury: string, said: string) => ({
  working: `# Athlete\n- Injuries: ${injury}`,
  messages: [
    { role: "user" as const, content: said },
    { role: "assistant" as const, content: "Noted, we will work around it." },
    { role: "user" as const, content: "I like cycling on weekends.", session: "hobbies" },
  ],
});

describe("eval cases with memory", () => {
  let kneeRun: string;

  it("the coach remembers the knee only because the case's memory was loaded; concurrent cases see only their own memory; nothing is left", async () => {
    const cases: EvalCase[] = [
      {
        name: "the coach remembers the knee",
        input: "Plan my leg day around my knee.",
        memory: memoryOf("left knee", KNEE),
        expects: "knee",
      },
      { name: "without memory the knee is unknown", input: "Plan my leg day around my knee.", expects: "knee" },
      {
        name: "alice (concurrent)",
        input: "Plan my leg day, mind my injury (concurrent)",
        memory: memoryOf("left knee", KNEE),
        expects: "knee",
      },
      {
        name: "bob (concurrent)",
        input: "Plan my leg day, mind my injury (concurrent)",
        memory: memoryOf("right shoulder", SHOULDER),
        expects: "shoulder",
      },
    ];
    const report = await coach.eval({
      cases,
      scorers: [sparesTheInjury, recalledItsOwnMemory],
      concurrency: 4,
      client: harness.client,
      taskQueue: queue,
    });
    expect(report.rows.map((r) => [r.case, r.scorer, r.status])).toEqual([
      ["the coach remembers the knee", "sparesTheInjury", "pass"],
      ["the coach remembers the knee", "recalledItsOwnMemory", "pass"],
      ["without memory the knee is unknown", "sparesTheInjury", "fail"], // the same case without memory: a plain leg day
      ["without memory the knee is unknown", "recalledItsOwnMemory", "not-applicable"],
      ["alice (concurrent)", "sparesTheInjury", "pass"],
      ["alice (concurrent)", "recalledItsOwnMemory", "pass"],
      ["bob (concurrent)", "sparesTheInjury", "pass"],
      ["bob (concurrent)", "recalledItsOwnMemory", "pass"],
    ]);
    // Each model request saw its own case's memory only, the two concurrent ones at the same time.
    const byInput = (input: string) => model.requests.filter((r) => r.body.messages.at(-1)?.content === input);
    expect(byInput("Plan my leg day, mind my injury (concurrent)").map(injuriesIn).sort()).toEqual([
      ["knee"],
      ["shoulder"],
    ]);
    expect(byInput("Plan my leg day around my knee.").map(injuriesIn).sort()).toEqual([[], ["knee"]]);
    // Each case and trial had a user of its own, deleted once scored: no real user's memory, nothing left.
    expect(new Set(users).size).toBe(3);
    for (const user of users) {
      expect(user).toMatch(/^durable-agent-eval:/);
      expect(await store.inspect(user)).toEqual({ messages: [] });
    }
    kneeRun = report.runs.find((r) => r.case === "the coach remembers the knee")!.workflowId;
  });

  it("with recall scoped to the session, the case's messages are recalled from the run's own session", async () => {
    const report = await sessionCoach.eval({
      cases: [
        {
          name: "session knee",
          input: "Plan my leg day around my knee.",
          memory: memoryOf("left knee", KNEE),
          expects: "knee",
        },
      ],
      scorers: [sparesTheInjury, recalledItsOwnMemory],
      client: harness.client,
      taskQueue: queue,
    });
    expect(report.rows.map((r) => r.status)).toEqual(["pass", "pass"]);
  });

  it("casesFromRuns records what a run recalled as the case's memory; a case file keeps it; a playback gives it to the model", async () => {
    const [recorded] = await ai.eval.casesFromRuns({ workflowIds: [kneeRun], client: harness.client });
    expect(recorded!.memory?.working).toBe("# Athlete\n- Injuries: left knee");
    expect(recorded!.memory?.messages?.map((m) => [m.role, m.content])).toContainEqual(["user", KNEE]);
    const file = join(mkdtempSync(join(tmpdir(), "eval-memory-")), "cases.jsonl");
    await writeCases(file, [recorded!]);
    const [read] = await readCases(file);
    expect(read!.memory).toEqual(recorded!.memory);
    // The recording's knee reaches the model as the system message it saw, with no store and no recall.
    const played = await coach.eval({
      cases: [{ ...read!, name: "played back", expects: "knee" }],
      scorers: [sparesTheInjury],
      tools: "recorded",
      client: harness.client,
      taskQueue: queue,
    });
    expect(played.rows.map((r) => r.status)).toEqual(["pass"]);
  });

  it("a case with memory on an agent without memory, or a working memory that is not the agent's kind, is an EvalOptionsError naming the fix", async () => {
    const plain = ai.agent({ name: "eval-memory-plain", model: ai.openai("gpt-test", { baseURL: model.baseURL }) });
    const options = { scorers: [sparesTheInjury], client: harness.client, taskQueue: queue };
    const refused = plain.eval({
      cases: [{ name: "knee", input: "Plan", memory: { working: "# Athlete" } }],
      ...options,
    });
    await expect(refused).rejects.toThrow(EvalOptionsError);
    await expect(refused).rejects.toMatchObject({
      field: "cases[0].memory",
      message: expect.stringContaining("ai.memory("),
    });
    await expect(
      coach.eval({ cases: [{ name: "knee", input: "Plan", memory: { working: { injuries: 1 } } }], ...options }),
    ).rejects.toMatchObject({
      field: "cases[0].memory.working",
      message: expect.stringContaining("must be markdown text"),
    });
    await expect(
      coach.eval({
        cases: [
          {
            name: "knee",
            input: "Plan",
            memory: { messages: [{ role: "tool", content: "x" }] },
          } as unknown as EvalCase,
        ],
        ...options,
      }),
    ).rejects.toMatchObject({ field: "cases[0].memory.messages.0.role" });
  });
});
