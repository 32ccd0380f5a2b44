/**
 * Several agents in one run. Worker and client side: `agent.asTool()` (each call a child
 * workflow), `handoffs`, the registration of sub-agents on workers, and reading a run's tree
 * (nested traces, merged streams). The workflow side lives in src/workflows (sub-agent-call.ts,
 * handoff.ts, approvals.ts).
 */
export { subAgentTool, type AsToolOptions } from "./as-tool.js";
export { handoffToolName, handoffTools, type Handoff, type HandoffOptions } from "../agent/handoff-tools.js";
export { withSubAgents } from "./collect-agents.js";
export { nestedTrace } from "./nested-trace.js";
export { withSubAgentStreams } from "./merge-streams.js";
