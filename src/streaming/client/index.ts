/**
 * Streaming's client half: a run's events as they happen, read by one reader per run per process
 * (`run-watch.ts`: the shared reader, its Temporal history follower, the lease and the follower of
 * another process's reads through Redis), handed to each watcher through a bounded queue whose
 * waits take an abort signal. On top: the event stream (`RunEventStream`, with its SSE response)
 * and the AI SDK's UI message stream with its chunk mapper. `client/`, `chat/` and the root
 * entry use it only through this entry.
 */
export { RunEventStream, type StreamOptions } from "./run-event-stream.js";
export { uiMessageStream, uiMessageStreamResponse, type UIMessageStreamOptions } from "./ui-message-stream.js";
export type { DurableAgentUIDataTypes, SubAgentData, SubAgentPart } from "./data-parts.js";
