/** Whose memory a run is: its `user`, checked on the client, and the one warning for an agent with memory run without one. */
import { checkUser } from "../memory/index.js";
import type { RunLogger } from "./no-worker-warning.js";

const warned = new Set<string>();

/**
 * The run's user, checked (`InvalidUserError`); with none for an agent that has `memory`, a warning
 * (once per agent and process): such a run has no memory.
 */
export function runUser(
  agent: { name: string; options?: { memory?: unknown } } | string,
  user: unknown,
  logger: RunLogger = console,
): string | undefined {
  if (user !== undefined) {
    checkUser(user);
    return user;
  }
  if (typeof agent !== "string" && agent.options?.memory && !warned.has(agent.name)) {
    warned.add(agent.name);
    logger.warn(
      `agent "${agent.name}" has memory, but this run has no user: it recalls and remembers nothing. ` +
        "Pass { user } to run(), start() or session() (a chat's user is authorize's `by`).",
    );
  }
  return undefined;
}
