/**
 * Streaming's worker half: the model call's answer in flight, sent as heartbeat details (read by
 * watchers with `describe()`) and through the worker's delta transport, and published as the run's
 * `text.delta` and `reasoning.delta` events. The worker and its activities use it only through this entry.
 */
export { answerHeartbeat, STREAMING_HEARTBEAT_INTERVAL, type AnswerHeartbeat } from "./answer-heartbeat.js";
