/**
 * Agents as A2A servers: `createA2AHandler()`, a fetch handler for A2A's JSON-RPC binding (agent
 * cards, `message/send`, `message/stream`, `tasks/get`, `tasks/cancel`, `tasks/resubscribe`), each
 * task a message of a durable session of the agent. `@a2a-js/sdk` is an optional peer, loaded on
 * the first request.
 */
export { createA2AHandler, type A2ACaller, type A2AHandler, type A2AHandlerOptions } from "./a2a-handler.js";
export type { A2AAgent } from "./agent-card.js";
export type { A2ADecision } from "./message-input.js";
