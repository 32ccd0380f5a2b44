/** Loads the agents a module exports, for the CLI's `dev` and `worker` commands. */
import { Agent } from "../facade/define-agent.js";
import { UsageError } from "./command.js";
import { importUserModule } from "./import-module.js";

function isAgent(value: unknown): value is Agent {
  if (value instanceof Agent) return true;
  // An Agent from another copy of the package (a module that imports its own durable-agent).
  const candidate = value as Partial<Agent> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.name === "string" &&
    typeof candidate.start === "function" &&
    typeof candidate.options === "object"
  );
}

/**
 * The `ai.agent(...)` values a module exports (named exports, the default export, or arrays of
 * agents). Throws a `UsageError` naming the module when it cannot be loaded or exports none.
 */
export async function loadAgents(path: string): Promise<Agent[]> {
  let exported: Record<string, unknown>;
  try {
    exported = await importUserModule(path);
  } catch (error) {
    if (UsageError.isInstance(error)) throw error;
    throw new UsageError(`Cannot load the agents module ${path}: ${(error as Error).message}`);
  }
  const agents = new Set<Agent>();
  for (const value of Object.values(exported))
    for (const item of Array.isArray(value) ? value : [value]) if (isAgent(item)) agents.add(item);
  if (agents.size === 0)
    throw new UsageError(
      `The module ${path} exports no agent: export the values of ai.agent(...), e.g. \`export const coach = ai.agent({ ... })\`.`,
    );
  return [...agents];
}
