/** The coach's eval: cases and scorers, shared by the suites with and without the contract. */
import { ai, defineScorer, type EvalCase } from "../../src/index.js"; // in your project: from "durable-agent"

export const cases: EvalCase[] = [
  { name: "offers-instead-of-acting", input: "Swap squats for lunges" },
  { name: "claims-without-tool-call", input: "Replace push-ups with burpees" },
  { name: "acts-at-once", input: "Change planks to side planks" },
  { name: "question", input: "What do squats work?", tags: ["no-change"] },
];

export const scorers = [
  ai.eval.requiredToolCalled({ tools: ["update_plan"], intents: [/\b(swap|replace|change|add|remove)\b/i] }),
  ai.eval.changeClaimedWithoutToolCall({ tools: ["update_plan"] }),
  // A custom scorer: a named function of the record.
  defineScorer("answered", (record) =>
    record.stopReason === "answered" ? { pass: true } : { pass: false, reason: `stopped: ${record.stopReason}` },
  ),
];
