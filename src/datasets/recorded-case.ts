/**
 * `RecordedCase`: an eval case read from a finished run, with what the run did. Its zod schema is
 * the single source of the type, of the case-file reader's checks, and of
 * `docs/recorded-case.schema.json` (a test keeps that file equal to this schema).
 */
import { z } from "zod";
import type { EvalCase } from "./eval-case.js";
import type { Message, StopReason, ToolCallStatus, TraceEvent } from "../core/types.js";
import type { RunUsage } from "../core/usage.js";
import type { RunInput } from "../client/normalize-input.js";
import type { RecordedBackstop, RecordedToolCall } from "../core/playback.js";
import { usageSchema } from "./usage-schema.js";
import { caseMemorySchema } from "./case-memory.js";

const toolCallStatus = z.enum(["ok", "failed", "refused"]);
const messageSchema = z
  .looseObject({
    role: z.enum(["system", "user", "assistant", "tool"]),
    content: z.union([z.string(), z.null(), z.array(z.looseObject({ type: z.string() }))]),
  })
  .describe(
    "A message in the Chat Completions shape (camel-cased): system, user (text or content parts), " +
      "assistant (with toolCalls, and its reasoning and provider metadata when the provider gave them), " +
      "tool",
  );

const recordedToolCallSchema = z
  .object({
    name: z.string().min(1),
    input: z.unknown().describe("The parsed input (the raw text when it was not valid JSON)"),
    output: z.unknown().optional().describe("What the tool returned"),
    status: toolCallStatus,
    reason: z.string().optional().describe("Why it was refused"),
    error: z.string().optional().describe("Why it failed"),
    trip: z.number().int().min(1).optional().describe("The trip whose answer asked for it"),
  })
  .describe(
    "A recorded tool call: a playback answers an equal call (same name, deep-equal input) with its output and status",
  );

const recordingSchema = z
  .object({
    workflowId: z.string().min(1),
    runId: z.string(),
    agent: z.string().min(1).describe("The run's agent"),
    agentVersion: z.string().optional().describe("The agent definition's version (agent.version) that served the run"),
    reply: z.string(),
    stopReason: z.enum(["answered", "max-trips", "budget", "invalid-output", "cancelled", "timed-out"]),
    trips: z.number().int().min(0),
    usage: usageSchema.optional(),
    toolCalls: z.array(recordedToolCallSchema),
    backstops: z
      .array(z.object({ name: z.string(), prompt: z.string().optional() }))
      .optional()
      .describe("Backstops whose run ran in the recording, with the prompt each returned"),
    messages: z.array(messageSchema).optional().describe("The recorded conversation of this run (or session message)"),
    trace: z
      .array(z.looseObject({ trip: z.number().int().min(0), type: z.string() }))
      .optional()
      .describe("The recorded agent trace"),
  })
  .describe("What the recorded run did");

/** The schema of one line of a case file. */
export const recordedCaseSchema = z
  .looseObject({
    name: z.string().min(1).describe("The workflow id (a session's message: the workflow id and #n)"),
    input: z
      .union([z.string().min(1), z.array(messageSchema).min(1)])
      .describe("The input as the user sent it: text, or messages with content parts"),
    context: z.unknown().optional().describe("The run's context, when it had one"),
    messages: z.array(messageSchema).optional().describe("A session's message: the conversation before it"),
    memory: caseMemorySchema.optional().describe("What the run recalled: its working memory and recalled messages"),
    recorded: recordingSchema,
  })
  .describe("A durable-agent eval case read from a recorded run (one line of a case file)");

/** What a recorded run did, as a case carries it. */
export interface Recording {
  workflowId: string;
  runId: string;
  /** The run's agent. */
  agent: string;
  /** The `agent.version` of the definition that served the run (absent in runs from before versions). */
  agentVersion?: string;
  reply: string;
  stopReason: StopReason;
  trips: number;
  usage?: RunUsage;
  /** Every tool call with its input, output and status: what a playback answers from. */
  toolCalls: Array<RecordedToolCall & { status: ToolCallStatus; trip?: number }>;
  /** Backstops whose `run` ran, with the prompt each returned: a playback uses these instead of running them. */
  backstops?: RecordedBackstop[];
  /** The recorded conversation (for `--baseline recorded` and the HTML report). */
  messages?: Message[];
  /** The recorded trace. */
  trace?: TraceEvent[];
}

/** An eval case read from a recorded run: `name` is the workflow id, `input` as the user sent it, plus `recorded`. */
export interface RecordedCase extends EvalCase {
  input: RunInput;
  /** The run's context, when it had one. */
  context?: unknown;
  /** A session's message: the conversation before it. */
  messages?: Message[];
  recorded: Recording;
}

/** Whether a case carries a recording (a `RecordedCase`). */
export function isRecordedCase(evalCase: EvalCase): evalCase is RecordedCase {
  const recorded = (evalCase as { recorded?: unknown }).recorded;
  return typeof recorded === "object" && recorded !== null && Array.isArray((recorded as Recording).toolCalls);
}

/** The JSON Schema (draft 2020-12) of one case-file line, as committed in `docs/recorded-case.schema.json`. */
export function recordedCaseJsonSchema(): object {
  return z.toJSONSchema(recordedCaseSchema, { target: "draft-2020-12", io: "input" });
}
