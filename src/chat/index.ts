/**
 * The AI SDK's chat protocol over runs and sessions: a run's answer as a UI message stream (what
 * `useChat` reads), and its server-sent-events response.
 */
export { uiMessageStream, uiMessageStreamResponse, type UIMessageStreamOptions } from "./ui-message-stream.js";
export type { DurableAgentUIDataTypes, SubAgentData, SubAgentPart } from "./data-parts.js";
