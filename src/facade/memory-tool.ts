/**
 * The working memory's built-in tool, `update_working_memory`: an `ai.tool()` like any other (an
 * activity, at most once per call by its idempotency key), added to agents whose `memory` has a
 * `workingMemory`. Its input is checked with the template's shape (a markdown string) or the
 * schema; a document that fails the schema is a refused call, and the stored one is unchanged.
 */
import { z } from "zod";
import { defineTool, type Tool } from "../agent/define-tool.js";
import { WORKING_MEMORY_TOOL } from "../core/memory.js";
import { updateWorkingMemory, type Memory } from "../memory/index.js";

/** The agent's memory tools: `update_working_memory` when its memory keeps a working memory, else none. */
export function memoryTools(memory: Memory | undefined): Tool[] {
  const working = memory?.workingMemory;
  if (!memory || !working) return [];
  const template = "template" in working;
  const input = z.object({
    memory: template
      ? z
          .string()
          .describe("The whole working memory document, in the template's markdown, with what you learnt filled in")
      : working.schema.describe("The whole working memory object, with what you learnt filled in"),
  });
  const description =
    "Updates the user's working memory: what to remember about them across conversations. Send the whole " +
    `document (it replaces the one you were given${template ? `; keep the template's structure:\n${working.template}` : ""}).`;
  return [
    defineTool({
      name: WORKING_MEMORY_TOOL,
      description,
      input,
      execute: async ({ memory: value }, ctx) => {
        if (ctx.user === undefined)
          return { refused: true, reason: "this run has no user, so it has no working memory to update" };
        const update = await updateWorkingMemory(memory, ctx.user, value, ctx.workingMemorySeen, ctx.idempotencyKey);
        return update.ok ? { ok: true, version: update.version } : { refused: true, reason: update.reason };
      },
    }),
  ];
}
