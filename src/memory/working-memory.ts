/**
 * The `update_working_memory` tool's effect: the model's new document, written with the store's
 * version check. When another session wrote meanwhile, the update is merged into what it wrote
 * (`mergeWorkingMemory`) and written again: neither update is lost. Worker side.
 */
import type { SeenWorkingMemory } from "../core/memory.js";
import type { Memory } from "./define-memory.js";
import { mergeWorkingMemory } from "./merge.js";

/** Writes after a conflict, at most: each one found a newer version written meanwhile. */
const MAX_WRITES = 8;

/** What an update came to: the document written and its version, or why it was refused (the document unchanged). */
export type WorkingMemoryUpdate = { ok: true; version: number; workingMemory: unknown } | { ok: false; reason: string };

/** The document before any update: the template (markdown), or an empty object (a schema). */
export function initialWorkingMemory(memory: Memory): unknown {
  const working = memory.workingMemory;
  return working && "template" in working ? working.template : {};
}

/**
 * Writes `value`, the model's update of `seen` (the document as the model saw it; absent: the
 * stored one), keyed by `key` (the call's idempotency key: a retried call writes nothing twice).
 */
export async function updateWorkingMemory(
  memory: Memory,
  user: string,
  value: unknown,
  seen: SeenWorkingMemory | undefined,
  key: string,
): Promise<WorkingMemoryUpdate> {
  const store = await memory.opened();
  let expected: number;
  let base: unknown;
  if (seen) ({ version: expected, content: base } = seen);
  else {
    const current = await store.getWorkingMemory(user);
    expected = current?.version ?? 0;
    base = current?.content ?? initialWorkingMemory(memory);
  }
  let content = value;
  for (let write = 0; write < MAX_WRITES; write++) {
    const checked = checkSchema(memory, content);
    if (!checked.ok) return checked;
    const written = await store.setWorkingMemory(user, checked.value, expected, key);
    if (written.ok) return { ok: true, version: written.version, workingMemory: checked.value };
    // Another session wrote first: merge this update into its document and try again against its version.
    expected = written.current.version;
    content = mergeWorkingMemory(base, value, written.current.content);
  }
  throw new Error(`the working memory kept changing: ${MAX_WRITES} writes each found a newer version`);
}

function checkSchema(memory: Memory, content: unknown): { ok: true; value: unknown } | { ok: false; reason: string } {
  const working = memory.workingMemory;
  if (!working || !("schema" in working)) return { ok: true, value: content };
  const parsed = working.schema.safeParse(content);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`).join("; ");
  return { ok: false, reason: `the working memory does not match its schema (${issues}); it is unchanged` };
}
