/**
 * `npx durable-agent eval examples/evals/coach.eval.ts`: the coach with the tool-use contract.
 * Set OPENAI_API_KEY for a real model, or OPENAI_BASE_URL for any compatible server.
 */
import { createCoach } from "./coach-agent.js";

export const agent = createCoach({ contract: true });
export { cases, scorers } from "./coach-cases.js";
