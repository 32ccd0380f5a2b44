/** The chat UI's server side: `createChatHandler` for the AI SDK's `useChat`, and the chat's history as `UIMessage[]`. */
export {
  createChatHandler,
  type ChatAgent,
  type ChatCaller,
  type ChatHandler,
  type ChatHandlerOptions,
} from "./chat-handler.js";
export { answerMessageId, chatHistory, userMessageId, type ChatState } from "./chat-history.js";
