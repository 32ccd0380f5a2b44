/**
 * `durable-agent/ui`: the browser side of a chat served by `createChatHandler`. Loads in a browser
 * (no Node built-ins); its only dependency is the AI SDK (`ai`), an optional peer.
 */
export {
  DurableChatTransport,
  type DurableChatTransportOptions,
  type WatchedAnswer,
} from "./durable-chat-transport.js";
export { DEFAULT_RECONNECT, type ReconnectOptions } from "./backoff.js";
