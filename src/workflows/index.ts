/** The workflow bundle's entry: the one workflow the library ships. */
export { agentRun } from "./agent-run.js";
