/**
 * The example's agents, served by a worker: `npm run worker` (`durable-agent worker ./agents.ts`).
 * The Next.js routes import the same module to name the agent; its tools run on the worker only.
 * The model is `OPENAI_BASE_URL` / `OPENAI_API_KEY` on the worker: a real one, or the scripted
 * model of `npm run scripted-model` (script.ts).
 */
import { z } from "zod";
import { ai } from "durable-agent";

const model = ai.openai(process.env.OPENAI_MODEL ?? "gpt-4o-mini");

/** The user's training plan, kept in memory for the example; a real app writes to its database. */
const plan = { exercises: ["squats", "push-ups", "planks"] };

/** A tool: today's weather in a city (made up for the example). */
export const getWeather = ai.tool({
  name: "get_weather",
  description: "Today's weather in a city.",
  input: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, forecast: "sunny", celsius: 21 }),
});

/** A tool that needs a person's approval before it runs: `addToolApprovalResponse` in the page decides. */
export const refund = ai.tool({
  name: "refund",
  description: "Refund an order. A person approves every refund.",
  input: z.object({ orderId: z.string() }),
  needsApproval: true,
  execute: async ({ orderId }, { idempotencyKey }) => {
    // A real app calls its payment provider here, with the idempotency key.
    const refundId = `rf-${idempotencyKey}`;
    console.log(`refund: order ${orderId} refunded (${refundId})`);
    return { ok: true, orderId, refundId };
  },
});

/** The tool `actWhenAsked` requires when the user asks for a change to the plan. */
export const updatePlan = ai.tool({
  name: "update_plan",
  description:
    "Replace one exercise of the user's plan with another. Call this to make a change; do not just offer it.",
  input: z.object({ from: z.string(), to: z.string() }),
  execute: async ({ from, to }) => {
    const index = plan.exercises.findIndex((name) => name.toLowerCase() === from.toLowerCase());
    if (index < 0) return { ok: false, reason: `"${from}" is not in the plan (${plan.exercises.join(", ")})` };
    plan.exercises[index] = to;
    return { ok: true, plan: plan.exercises };
  },
});

/** A sub-agent: each call is its own durable run, and its events show nested in the chat. */
export const researcher = ai.agent({
  name: "chat-researcher",
  model,
  instructions: "You are a researcher. Answer the question you are sent in a few sentences.",
});

/** The chat's agent: one session per chat. */
export const assistant = ai.agent({
  name: "chat-assistant",
  model,
  instructions:
    "You are a helpful assistant for a fitness app. The user's plan is: squats, push-ups, planks. " +
    "Use update_plan to change it, refund for refunds, get_weather for the weather, and chat-researcher for research.",
  tools: [getWeather, refund, updatePlan, researcher.asTool({ description: "Ask the researcher a question." })],
  maxTrips: 8,
  // A crashed worker's answer is retried on another worker after 5 s without a heartbeat (default 30 s).
  timeouts: { heartbeat: "5s" },
  // The tool-use contract: asked for a change, the model must call update_plan, or it is re-prompted.
  actWhenAsked: { intents: [/\b(swap|replace)\b/i], requiredTools: ["update_plan"] },
});
