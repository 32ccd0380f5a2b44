/**
 * `durable-agent eval examples/recorded-runs/coach.eval.ts --cases cases.jsonl`: the coach with
 * actWhenAsked on, replayed over a case file made by `durable-agent dataset` (recorded tools by
 * default). Set OPENAI_BASE_URL for any compatible server (or OPENAI_API_KEY for OpenAI).
 */
import { ai } from "../../src/index.js"; // in your project: from "durable-agent"
import { createCoach } from "./coach.js";
import { requiredToolCalled } from "./recorded-loop.js";

export const agent = createCoach({ actWhenAsked: true, model: ai.openai(process.env.OPENAI_MODEL ?? "gpt-4o-mini") });
export const scorers = [requiredToolCalled];
