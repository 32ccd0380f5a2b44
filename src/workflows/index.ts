/** The workflow bundle's entry: the workflows the library ships. */
export { agentRun } from "./agent-run.js";
export { agentSession } from "./agent-session.js";
