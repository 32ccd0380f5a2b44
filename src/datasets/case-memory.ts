/**
 * A case's `memory`: the working memory and the past messages the eval loads into a fresh memory
 * scope before the case's run, so a case can test what the agent remembers. Its zod schema checks
 * the cases of `agent.eval()` and the lines of case files.
 */
import { z } from "zod";
import type { TraceEvent } from "../core/types.js";
import { defined } from "../core/defined.js";

const caseMemoryMessageSchema = z
  .object({
    role: z.enum(["user", "assistant"]),
    content: z.string().min(1).describe("The message's text"),
    session: z
      .string()
      .min(1)
      .optional()
      .describe("The past conversation it was said in: messages of one session are neighbours (recall's messageRange)"),
    createdAt: z
      .string()
      .refine((text) => !Number.isNaN(Date.parse(text)), "must be a date and time (ISO 8601)")
      .optional()
      .describe("When it was said (ISO 8601); default the day before the eval"),
  })
  .describe("A message of the user's past conversations, as the memory store keeps it");

/** The schema of a case's `memory`. */
export const caseMemorySchema = z
  .object({
    working: z
      .unknown()
      .optional()
      .describe("The user's working memory: markdown text (a template), or a JSON object (a schema)"),
    messages: z.array(caseMemoryMessageSchema).optional().describe("Past messages, in the order they were said"),
  })
  .describe("What the user's memory holds before the case's run: loaded into a fresh memory scope per run");

/** A message of a case's `memory`: something the user or the agent said in an earlier conversation. */
export interface EvalCaseMemoryMessage {
  /** Who said it. */
  role: "user" | "assistant";
  /** Its text. */
  content: string;
  /** The earlier conversation it was in: messages of one session are neighbours (recall's `messageRange`). Default: one session for all. */
  session?: string;
  /** When it was said (ISO 8601). Default: the day before the eval, a second apart, in order. */
  createdAt?: string;
}

/** A case's `memory`: what the user's memory holds before the case's run (a fresh memory scope per run). */
export interface EvalCaseMemory {
  /** The working memory, as the store keeps it: markdown text (`workingMemory: { template }`), or an object (`{ schema }`). */
  working?: unknown;
  /** Past messages, embedded with the agent's embedder and stored before the run. */
  messages?: EvalCaseMemoryMessage[];
}

/** What a run (or a session's message: its turn) recalled, as a case's `memory`, or undefined when it recalled nothing. */
export function caseMemoryOf(trace: readonly TraceEvent[]): EvalCaseMemory | undefined {
  const recall = trace.findLast(
    (e): e is Extract<TraceEvent, { type: "memory.recalled" }> => e.type === "memory.recalled",
  );
  if (!recall) return undefined;
  const messages = recall.recalled.map((m) => ({
    role: m.role,
    content: m.text,
    session: m.session,
    createdAt: m.createdAt,
  }));
  if (recall.workingMemory === undefined && messages.length === 0) return undefined;
  return { ...defined({ working: recall.workingMemory }), ...(messages.length ? { messages } : {}) };
}
