/**
 * The chat UI's server side: `createChatHandler` for the AI SDK's `useChat`, the chat's history as
 * `UIMessage[]`, and a run's or a session message's answer as a UI message stream (what `useChat`
 * reads) with its server-sent-events response.
 */
export {
  createChatHandler,
  type ChatAgent,
  type ChatCaller,
  type ChatHandler,
  type ChatHandlerOptions,
} from "./chat-handler.js";
export type { ChatSummary } from "./chat-list.js";
export { answerMessageId, chatHistory, userMessageId, type ChatState } from "./chat-history.js";
export { uiMessageStream, uiMessageStreamResponse, type UIMessageStreamOptions } from "../streaming/client/index.js";
export type { DurableAgentUIDataTypes, SubAgentData, SubAgentPart } from "../streaming/client/index.js";
