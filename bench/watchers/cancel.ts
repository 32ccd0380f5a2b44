/**
 * `npm run bench:watchers`' cancel rows (issue 40): W watchers that connect and cancel in a loop,
 * to an idle run (waiting for an approval) and to an answering one (a slow answer streaming). A
 * client process (cancel-client.ts) does the loop; here: the runs, on a worker of their own. Goals:
 * no history call in flight 1 s after the last cancel, and the client's RSS within 10 MB of its
 * start after the streams.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@temporalio/client";
import { NativeConnection } from "@temporalio/worker";
import { z } from "zod";
import { ai } from "../../src/index.js";
import { startScriptedModel, type ScriptedRequest, type ScriptedTurn } from "../../src/testing/index.js";
import type { CancelOutcome } from "./cancel-client.js";

/** The size of the cancel rows. */
export interface CancelPlan {
  /** Watchers that connect and cancel at once. */
  watchers: number;
  /** Streams cancelled per run. */
  streams: number;
}

/** 10,000 streams, 10 at a time; `--quick`: 1,000, 4 at a time. */
export const CANCEL_PLAN: CancelPlan = { watchers: 10, streams: 10_000 };
export const QUICK_CANCEL_PLAN: CancelPlan = { watchers: 4, streams: 1_000 };

/** One row: the run's state, and what the client measured. */
export type CancelRow = { run: "idle (waiting for approval)" | "answering"; watchers: number } & CancelOutcome;

const IDLE = "bench-cancel-idle";
const ANSWERING = "bench-cancel-answering";
/** The answering run's answer: long enough to outlast the loop at 20 chunks a second. */
const LONG_ANSWER = "word ".repeat(40_000);

/** The idle agent asks for an approved tool call; the answering one streams its long answer. */
function script(request: ScriptedRequest): ScriptedTurn {
  const idle = request.body.messages.some((m) => typeof m.content === "string" && m.content.includes(IDLE));
  return idle ? { text: "Asking.", toolCalls: [{ name: "update_plan", arguments: {} }] } : LONG_ANSWER;
}

/** Runs the loop against an idle and an answering run; the two rows. */
export async function measureCancels(address: string, client: Client, plan: CancelPlan): Promise<CancelRow[]> {
  const model = await startScriptedModel(script, { chunkSize: 5, chunksPerSecond: 20 });
  const tool = ai.tool({
    name: "update_plan",
    input: z.object({}),
    needsApproval: true,
    execute: async () => ({ ok: true }),
  });
  const model_ = ai.openai("gpt-bench", { baseURL: model.baseURL, apiKey: "bench" });
  const agents = [IDLE, ANSWERING].map((name) => ai.agent({ name, model: model_, tools: [tool] }));
  const connection = await NativeConnection.connect({ address });
  const taskQueue = `bench-cancel-${randomUUID()}`;
  const worker = await ai.worker({ connection, taskQueue, agents });
  try {
    return await worker.runUntil(async () => {
      const idle = await agents[0]!.start(`Run ${IDLE}`, { client, taskQueue, streamText: true });
      const answering = await agents[1]!.start(`Run ${ANSWERING}`, { client, taskQueue, streamText: true });
      while ((await idle.pendingApprovals()).length === 0) await sleep(100); // a bench may poll: the run waits soon
      const rows: CancelRow[] = [];
      for (const [run, handle] of [
        ["idle (waiting for approval)", idle],
        ["answering", answering],
      ] as const) {
        rows.push({ run, watchers: plan.watchers, ...(await cancelLoop(address, handle.workflowId, plan)) });
        console.log(`bench: watchers: cancel loop, ${run}: ${JSON.stringify(rows.at(-1))}`);
      }
      await Promise.all([idle.cancel(), answering.cancel()]);
      return rows;
    });
  } finally {
    await connection.close();
    await model.close();
  }
}

/** Runs cancel-client.ts once; its outcome. */
async function cancelLoop(address: string, workflowId: string, plan: CancelPlan): Promise<CancelOutcome> {
  const child = spawn(
    process.execPath,
    [
      "--expose-gc",
      "--import",
      "tsx",
      "--conditions=durable-agent-source",
      new URL("./cancel-client.ts", import.meta.url).pathname,
      address,
      workflowId,
      String(plan.watchers),
      String(plan.streams),
    ],
    { env: { ...process.env, DURABLE_AGENT_REDIS_URL: "" }, stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`the cancel client exited with ${code}`);
  return JSON.parse(out.trim().split("\n").at(-1)!) as CancelOutcome;
}
