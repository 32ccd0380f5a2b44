/**
 * `npx durable-agent eval examples/evals/coach-without-contract.eval.ts`: the same coach with
 * the tool-use contract off, to see what the checks catch.
 */
import { createCoach } from "./coach-agent.js";

export const agent = createCoach({ contract: false });
export { cases, scorers } from "./coach-cases.js";
