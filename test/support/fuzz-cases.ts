/**
 * The fuzz test's hostile answers: a seeded, deterministic list of cases, each a scripted answer
 * for the first trip and what the run must come to. Trip 2 answers plainly, so a run that
 * survives the hostile answer ends "answered".
 */
import type { RawTurn, ScriptedTurn } from "../../src/testing/index.js";

/** What a run must end with. */
export type Expected =
  | {
      stopReason: "answered";
      toolStatus?: "refused" | "ok";
      reason?: RegExp;
      reply?: RegExp;
      attempts?: number;
      toolCalls?: number;
    }
  | { error: string; message: RegExp };

export interface FuzzCase {
  id: number;
  kind: string;
  /** The first trip's answer; a function of the attempt (1-based), for transient faults. */
  answer: (attempt: number) => ScriptedTurn;
  expected: Expected;
}

/** A small, fast, seeded PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ids = { id: "chatcmpl-fuzz", created: 1, model: "gpt-fuzz", object: "chat.completion.chunk" };
const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ ...ids, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })}\n\n`;
/** A well-formed streamed text answer, as SSE text. */
function textStream(text: string): string {
  return chunk({ role: "assistant", content: "" }) + chunk({ content: text }) + chunk({}, "stop") + "data: [DONE]\n\n";
}

const ANSWERED_REFUSED = (reason: RegExp): Expected => ({ stopReason: "answered", toolStatus: "refused", reason });
const MODEL_ERROR = (message: RegExp): Expected => ({ error: "ModelApiError", message });

type Maker = (random: () => number, pick: <T>(items: readonly T[]) => T) => Omit<FuzzCase, "id" | "kind">;

/**
 * The hostile answers of issue 9, item 3, each with a few seeded variants. Since issue 18 a fault
 * that retrying may fix (a cut, truncated, empty or garbled stream) fails the first attempt only,
 * and the run completes on the second.
 */
const KINDS: Record<string, Maker> = {
  "malformed tool-call JSON": (_r, pick) => {
    const args = pick([
      '{"from": "squats", "to":',
      "{{{",
      "[1, 2",
      '"unterminated',
      "{'from': 'squats'}",
      "nul\u0000l",
    ]);
    return {
      answer: () => ({ toolCalls: [{ name: "update_plan", arguments: args }] }),
      expected: ANSWERED_REFUSED(/^Arguments for "update_plan" are not valid JSON/),
    };
  },
  "unknown tool name": (_r, pick) => {
    const name = pick([
      "drop_database",
      "../../etc/passwd",
      "update-plan",
      "",
      "UPDATE_PLAN",
      "ツール",
      "update_plan\u0000",
    ]);
    return {
      answer: () => ({ toolCalls: [{ name, arguments: { from: "a", to: "b" } }] }),
      expected: ANSWERED_REFUSED(/^Unknown tool ".*"\. Available tools: update_plan\.$/s),
    };
  },
  "arguments of the wrong type": (_r, pick) => {
    // Valid JSON of the wrong shape (a string argument would be sent as raw text, so it is JSON-encoded here).
    const args = JSON.stringify(
      pick<unknown>([{ from: 42, to: null }, [], "a string", { from: { nested: true }, to: "b" }, true, 3.14, null]),
    );
    return {
      answer: () => ({ toolCalls: [{ name: "update_plan", arguments: args }] }),
      expected: ANSWERED_REFUSED(/^Invalid input for "update_plan"/),
    };
  },
  "a 5 MB argument": (random) => {
    const bytes = 5 * 1024 * 1024 + Math.floor(random() * 1000);
    return {
      answer: () => ({
        toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "x".repeat(bytes) } }],
        chunkSize: 64 * 1024,
      }),
      expected: ANSWERED_REFUSED(
        new RegExp(
          `^Arguments for "update_plan" are ${bytes + JSON.stringify({ from: "squats", to: "" }).length} bytes, over the limit of 262144 bytes \\(limits\\.toolInputBytes\\)`,
        ),
      ),
    };
  },
  "hundreds of tool calls in one answer": (random) => {
    const count = 100 + Math.floor(random() * 300);
    return {
      answer: () => ({
        toolCalls: Array.from({ length: count }, (_, i) => ({
          name: "update_plan",
          arguments: { from: `e${i}`, to: `f${i}` },
        })),
      }),
      expected: {
        error: "TooManyToolCallsError",
        message: new RegExp(
          `asked for ${count} tool calls in one answer, over limits\\.toolCallsPerAnswer \\(32\\); none was executed`,
        ),
      },
    };
  },
  "exactly limits.toolCallsPerAnswer tool calls": () => ({
    answer: () => ({
      toolCalls: Array.from({ length: 32 }, (_, i) => ({
        name: "update_plan",
        arguments: { from: `e${i}`, to: `f${i}` },
      })),
    }),
    expected: { stopReason: "answered", toolStatus: "ok", toolCalls: 32 },
  }),
  "empty choices": (_r, pick) => {
    const raw = pick([
      `data: ${JSON.stringify({ ...ids, choices: [] })}\n\ndata: [DONE]\n\n`,
      `data: ${JSON.stringify({ ...ids, choices: [], usage: { prompt_tokens: 1, completion_tokens: 0, total_tokens: 1 } })}\n\ndata: [DONE]\n\n`,
    ]);
    return {
      answer: () => ({ raw }),
      expected: MODEL_ERROR(
        /^Model "gpt-fuzz": stream ended without producing a ChatCompletionMessage with role=assistant$/,
      ),
    };
  },
  "no usable chunk (then a retry succeeds)": (_r, pick) => {
    const raw = pick([
      `data: ${JSON.stringify({ ...ids, choices: null })}\n\ndata: [DONE]\n\n`,
      "data: [DONE]\n\n",
      "",
    ]);
    return {
      answer: (attempt) => (attempt === 1 ? { raw } : { raw: textStream("Recovered after an empty stream.") }),
      expected: { stopReason: "answered", reply: /^Recovered after an empty stream\.$/, attempts: 2 },
    };
  },
  "a wrong content type": (_r, pick) => {
    const turn = pick<RawTurn>([
      { raw: "<html><body><h1>502 Bad Gateway</h1></body></html>", contentType: "text/html" },
      {
        raw: JSON.stringify({
          id: "x",
          object: "chat.completion",
          choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
        }),
        contentType: "application/json",
      },
      { raw: "OK", contentType: "text/plain" },
      { raw: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), contentType: "image/png" },
    ]);
    return {
      answer: () => turn,
      expected: MODEL_ERROR(
        /^Model "gpt-fuzz": the server answered 200 with content-type [a-z/]+, not a chat completion stream \(text\/event-stream\)\. It sent: .*Check the model's baseURL/s,
      ),
    };
  },
  "a truncated SSE stream (then a retry succeeds)": (random) => {
    const whole =
      chunk({ role: "assistant", content: "" }) + chunk({ content: "Your plan is " }) + chunk({ content: "updated." });
    const cut = 1 + Math.floor(random() * (whole.length - 1)); // anywhere before the finishing chunk
    return {
      answer: (attempt) =>
        attempt === 1 ? { raw: whole.slice(0, cut) } : { raw: textStream("Recovered after a truncated stream.") },
      expected: { stopReason: "answered", reply: /^Recovered after a truncated stream\.$/, attempts: 2 },
    };
  },
  "cut after the first chunk (then a retry succeeds)": (_r, pick) => {
    const cutBy = pick(["close", "reset"] as const);
    const first = pick<ScriptedTurn>([
      { text: "This answer is cut after its first chunk.", cutAfterChunks: 1, cutBy },
      { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }], cutAfterChunks: 1, cutBy },
    ]);
    return {
      answer: (attempt) => (attempt === 1 ? first : { raw: textStream("Recovered after a cut stream.") }),
      expected: { stopReason: "answered", reply: /^Recovered after a cut stream\.$/, attempts: 2 },
    };
  },
  "a stream cut off in transit (then a retry succeeds)": (random) => {
    const whole = chunk({ role: "assistant", content: "" }) + chunk({ content: "Your plan is updated." });
    const cut = Math.floor(whole.length / 2 + random() * (whole.length / 2));
    return {
      answer: (attempt) =>
        attempt === 1
          ? { raw: whole.slice(0, cut), hangUp: true }
          : { raw: textStream("Recovered after a lost connection.") },
      expected: { stopReason: "answered", reply: /^Recovered after a lost connection\.$/, attempts: 2 },
    };
  },
  "invalid UTF-8 in the text": (random) => {
    const bad = new Uint8Array(
      Array.from({ length: 1 + Math.floor(random() * 4) }, () => 0x80 + Math.floor(random() * 0x40)),
    ); // continuation bytes only: never valid UTF-8
    const [before, after] = [
      `data: {"id":"c","created":1,"model":"m","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"bad `,
      ` bytes"},"finish_reason":null}]}\n\n`,
    ];
    return {
      answer: () => ({
        raw: [chunk({ role: "assistant", content: "" }), before!, bad, after!, chunk({}, "stop"), "data: [DONE]\n\n"],
      }),
      expected: { stopReason: "answered", reply: /^bad .*\uFFFD.* bytes$/ },
    };
  },
  "invalid UTF-8 where JSON was expected (then a retry succeeds)": (random) => {
    const bad = new Uint8Array([0xff, 0xfe, 0x80 + Math.floor(random() * 0x40)]);
    return {
      answer: (attempt) =>
        attempt === 1
          ? { raw: [chunk({ role: "assistant", content: "" }), "data: ", bad, "\n\n", "data: [DONE]\n\n"] }
          : { raw: textStream("Recovered after a garbled chunk.") },
      expected: { stopReason: "answered", reply: /^Recovered after a garbled chunk\.$/, attempts: 2 },
    };
  },
};

/** `perKind` seeded variants of every hostile answer, shuffled by the seed. Every variant is drawn here, never when answering, so the list is the same on every run. */
export function fuzzCases(seed: number, perKind: number): FuzzCase[] {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const cases: Array<Omit<FuzzCase, "id">> = [];
  for (const [kind, make] of Object.entries(KINDS))
    for (let i = 0; i < perKind; i++) cases.push({ kind, ...make(random, pick) });
  for (let i = cases.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [cases[i], cases[j]] = [cases[j]!, cases[i]!];
  }
  return cases.map((c, id) => ({ id, ...c }));
}
