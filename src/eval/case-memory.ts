/**
 * A case's `memory` in an eval: checked before any run, loaded into a memory scope of the run's own
 * (a fresh user id in the agent's store, so concurrent cases and trials never see each other's
 * memory and no real user's memory is read or written), and deleted once the case is scored.
 */
import { randomUUID } from "node:crypto";
import { caseMemorySchema, type EvalCaseMemory } from "../datasets/case-memory.js";
import type { EvalCase } from "../datasets/eval-case.js";
import { memoryMessageText } from "../core/memory.js";
import type { Message } from "../core/types.js";
import { EvalOptionsError } from "../errors.js";
import { embedTexts, type Memory, type MemoryMessageWrite } from "../memory/index.js";

/** The user ids of eval runs with memory start with this: they never name a real user. */
const EVAL_MEMORY_USER_PREFIX = "durable-agent-eval:";

/** The default session of a case's past messages. */
const DEFAULT_SESSION = "memory";
const DAY_MS = 86_400_000;

/**
 * Checks every case's `memory` (its shape; a working memory the agent keeps, matching its schema);
 * a case with memory needs an agent with `memory`, except with recorded tools, where the model is
 * given the memory as the recording's system message and no store is used.
 */
export function validateCaseMemory(
  agent: { name: string; options: { memory?: Memory } },
  cases: readonly EvalCase[],
  tools: string | undefined,
): void {
  cases.forEach((evalCase, i) => {
    if (evalCase.memory === undefined) return;
    const field = `cases[${i}].memory`;
    const parsed = caseMemorySchema.safeParse(evalCase.memory);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new EvalOptionsError([field, ...issue.path.map(String)].join("."), issue.message);
    }
    if (tools === "recorded") return;
    const memory = agent.options.memory;
    if (!memory)
      throw new EvalOptionsError(
        field,
        `agent "${agent.name}" has no memory to load it into: give the agent ai.agent({ memory: ai.memory({ store, embedder }) }), or drop the case's memory`,
      );
    if (evalCase.memory.working !== undefined) checkWorking(memory, evalCase.memory.working, `${field}.working`);
  });
}

function checkWorking(memory: Memory, working: unknown, field: string): void {
  const options = memory.workingMemory;
  if (!options)
    throw new EvalOptionsError(
      field,
      "the agent's memory keeps no working memory: give ai.memory({ workingMemory: { template } or { schema } })",
    );
  if ("template" in options) {
    if (typeof working !== "string")
      throw new EvalOptionsError(
        field,
        `must be markdown text (the agent's working memory is a template), got ${typeof working}`,
      );
    return;
  }
  const parsed = options.schema.safeParse(working);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
      .join("; ");
    throw new EvalOptionsError(field, `does not match the agent's working memory schema (${issues})`);
  }
}

/** A run's memory scope: its user, and the deletion of everything stored under it. */
export interface CaseMemoryScope {
  user: string;
  /** Deletes the scope's working memory and messages (the loaded ones and those the run remembered). */
  forget(): Promise<void>;
}

/**
 * Loads a case's memory under a fresh user id: the working memory (version 1), and the messages,
 * embedded with the agent's embedder, stored as the user's past sessions. With `scope: "session"`
 * recall, the messages are stored in the run's own session (`workflowId`), where it recalls from.
 */
export async function loadCaseMemory(
  memory: Memory,
  caseMemory: EvalCaseMemory,
  workflowId: string,
): Promise<CaseMemoryScope> {
  const user = `${EVAL_MEMORY_USER_PREFIX}${randomUUID()}`;
  const store = await memory.opened();
  const scope: CaseMemoryScope = { user, forget: async () => void (await store.forget(user)) };
  try {
    if (caseMemory.working !== undefined) {
      const written = await store.setWorkingMemory(user, caseMemory.working, 0, `${user}/working`);
      if (!written.ok) throw new Error(`the eval's memory scope ${user} already had a working memory`);
    }
    const messages = caseMemory.messages ?? [];
    const embeddings = await embedTexts(
      memory,
      messages.map((m) => m.content),
    );
    const since = Date.now() - DAY_MS;
    const rows = messages.map((message, i): MemoryMessageWrite => {
      const name = message.session ?? DEFAULT_SESSION;
      const session = memory.spec.recall.scope === "session" ? workflowId : `${user}/${name}`;
      return {
        user,
        session,
        run: `${user}/${name}`, // never the run's own id: recall leaves the asking run's messages out
        turn: 0,
        index: i, // the case's order: neighbours within a session follow it
        role: message.role,
        text: message.content,
        createdAt: message.createdAt ?? new Date(since + i * 1_000).toISOString(),
        embedding: embeddings[i]!,
      };
    });
    if (rows.length) await store.addMessages(rows);
  } catch (error) {
    await scope.forget().catch(() => undefined);
    throw error;
  }
  return scope;
}

/**
 * With recorded tools (no recall runs in a playback), the case's memory as the system message the
 * recording's model saw, placed before the case's input as the run placed it.
 */
export function recordedMemoryMessage(caseMemory: EvalCaseMemory | undefined): Message | undefined {
  if (!caseMemory) return undefined;
  const text = memoryMessageText({
    ...(caseMemory.working !== undefined ? { workingMemory: { content: caseMemory.working, version: 0 } } : {}),
    recalled: (caseMemory.messages ?? []).map((m, index) => ({
      session: m.session ?? DEFAULT_SESSION,
      run: m.session ?? DEFAULT_SESSION,
      turn: 0,
      index,
      role: m.role,
      text: m.content,
      createdAt: m.createdAt ?? new Date().toISOString(),
      score: 0,
      neighbour: false,
    })),
  });
  return text === undefined ? undefined : { role: "system", content: text };
}
