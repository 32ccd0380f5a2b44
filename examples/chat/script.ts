/**
 * What the scripted model answers in this example, by what the user asked: text paced at
 * `PACE` (so a reload, a network cut or a worker crash can happen mid-answer), tool calls, a
 * sub-agent's answer, and an answer that makes the `actWhenAsked` contract re-prompt.
 * - "story": a long answer (about 12 s); "long story": a longer one (about 25 s);
 * - "weather": calls `get_weather`, then answers;
 * - "refund": calls `refund` (which waits for approval), then confirms;
 * - "research": asks the `chat-researcher` sub-agent (its answer takes about 6 s), then sums up;
 * - "swap": offers the change without calling `update_plan`, is re-prompted, calls it, confirms;
 * - anything else: a short greeting.
 */
import type { ScriptHandler, ScriptedModelOptions, ScriptedTurn } from "durable-agent/testing";

/** 4 characters a delta, 25 deltas a second: 100 characters a second. */
export const PACE: ScriptedModelOptions = { chunkSize: 4, chunksPerSecond: 25 };

const SENTENCES = [
  "Once upon a time, a runner trained for a marathon through a long and rainy winter.",
  "Every morning she laced her shoes before dawn and ran along the river, counting bridges.",
  "Some days her legs were heavy and the wind pushed back, but she kept a steady pace.",
  "Her coach said that consistency beats intensity, and she wrote it on her bathroom mirror.",
  "By spring the bridges had become landmarks, and the landmarks had become friends.",
  "On race day the crowd was loud, the air was cold, and her breath came out in small clouds.",
  "At mile twenty she remembered the river, the bridges, and every grey morning behind her.",
  "She crossed the finish line smiling, not because she was fast, but because she had arrived.",
  "The medal hangs by the mirror now, next to the note about consistency. The end.",
];

/** The story, as the page shows it when complete (about 1,200 characters). */
export const STORY = SENTENCES.join(" ");

const SEQUEL = [
  "A year later she signed up for a trail race in the mountains, with no bridges to count.",
  "The paths were narrow and steep, and her first long climb left her walking, hands on her knees.",
  "She learned to shorten her stride uphill and to let gravity carry her down the other side.",
  "In the autumn she ran with a club that met on Saturdays at the foot of the old quarry.",
  "They shared oranges at the top and stories on the way down, and the miles went by unnoticed.",
  "The night before the race it snowed, and the organisers moved the start an hour later.",
  "She ran the first half carefully, the second half boldly, and the last mile on tired legs.",
  "A stranger at the finish handed her a cup of tea, and they talked about rivers and bridges.",
  "The second medal hangs beside the first, and the note on the mirror now has a second line. The end.",
];

/** A longer story, the first one and its sequel (about 2,500 characters): an answer still in flight after a 5 s network cut and the reconnect's backoff. */
export const LONG_STORY = [...SENTENCES, ...SEQUEL].join(" ");

/** The researcher sub-agent's answer (about 600 characters). */
export const RESEARCH =
  "Interval training alternates short bursts of hard effort with recovery. Studies comparing it with " +
  "steady cardio find similar gains in aerobic fitness in less total time, with larger gains for trained " +
  "athletes when the hard efforts last between thirty seconds and four minutes. Recovery between intervals " +
  "matters as much as the effort itself: too short and the quality drops, too long and the session becomes " +
  "steady cardio. Beginners do well with one or two interval sessions a week, on top of easy running.";

/** The first answer to "swap": it offers the change without making it, so the contract re-prompts. */
export const SWAP_OFFER =
  "Lunges are a good swap for squats: they are easier on the knees. I can make that change for you.";

/** The answers after a tool call. */
export const AFTER_TOOL = {
  get_weather: "It is sunny in Paris today, 21 degrees: a good day for a run outside.",
  refund: "Done: order 42 is refunded.",
  update_plan: "Done: lunges replace squats in your plan, which is now lunges, push-ups and planks.",
  "chat-researcher": "In short: one or two interval sessions a week give most of the benefit.",
} as const;

type Message = { role: string; content?: unknown; tool_calls?: unknown[] };

function textOf(message: Message | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((part) => (typeof part === "object" && part && "text" in part ? String(part.text) : ""))
      .join("");
  return "";
}

/** The contract's re-prompt (actWhenAsked's default hint), sent as a user message. */
function isReprompt(message: Message): boolean {
  return message.role === "user" && textOf(message).startsWith("You answered without making the change");
}

/** The script: one answer per model call, from the conversation the call carries. */
export const chatScript: ScriptHandler = ({ body }): ScriptedTurn => {
  const messages = body.messages as Message[];
  if (textOf(messages[0]).includes("You are a researcher")) return RESEARCH;
  const asked = messages.findLastIndex((message) => message.role === "user" && !isReprompt(message));
  const question = textOf(messages[asked]).toLowerCase();
  const since = messages.slice(asked + 1);
  const toolResult = since.findLast((message) => message.role === "tool");
  if (toolResult) {
    const call = since.findLast((message) => message.role === "assistant" && message.tool_calls?.length);
    const name = (call?.tool_calls?.[0] as { function?: { name?: string } } | undefined)?.function?.name;
    return AFTER_TOOL[name as keyof typeof AFTER_TOOL] ?? "Done.";
  }
  if (question.includes("long story")) return LONG_STORY;
  if (question.includes("story")) return STORY;
  if (question.includes("weather"))
    return { text: "Let me check.", toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] };
  if (question.includes("refund"))
    return { text: "I will ask for approval.", toolCalls: [{ name: "refund", arguments: { orderId: "42" } }] };
  if (question.includes("research"))
    return {
      toolCalls: [{ name: "chat-researcher", arguments: { message: "How well does interval training work?" } }],
    };
  if (question.includes("swap")) {
    if (since.some(isReprompt))
      return { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] };
    return SWAP_OFFER;
  }
  return "Hello! Ask me for a story, the weather, a refund, some research, or to swap an exercise.";
};
