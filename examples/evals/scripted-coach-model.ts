/**
 * A scripted model with the two failures the tool-use contract is for: asked to swap, it offers
 * ("Want me to swap that?"); asked to replace, it claims the change without calling the tool.
 * When re-prompted it calls update_plan, and after the tool it confirms. Asked to change, it acts
 * at once; asked a question, it answers.
 */
import type { ScriptHandler, ScriptedRequest } from "../../src/testing/index.js"; // in your project: from "durable-agent/testing"

function changeOf(input: string): { from: string; to: string } | undefined {
  const match = /^(?:swap|replace|change)\s+(.+?)\s+(?:for|with|to)\s+(.+?)[.!?]*$/i.exec(input.trim());
  return match ? { from: match[1]!, to: match[2]! } : undefined;
}

export const misbehavingCoachModel: ScriptHandler = ({ body }: ScriptedRequest) => {
  const users = body.messages.filter((m) => m.role === "user");
  const input = String(users[0]?.content ?? "");
  const change = changeOf(input);
  if (body.messages.at(-1)?.role === "tool") return change ? `Done — ${change.from} are now ${change.to}.` : "Done.";
  if (!change) return "Squats work your quads, glutes and hamstrings.";
  const act = { toolCalls: [{ name: "update_plan", arguments: change }] };
  if (users.length > 1) return act; // re-prompted by the contract
  if (/^swap/i.test(input))
    return `${change.to[0]!.toUpperCase()}${change.to.slice(1)} are a great swap for ${change.from}. Want me to swap that?`;
  if (/^replace/i.test(input)) return `Done — ${change.from} are now ${change.to}.`;
  return act;
};
