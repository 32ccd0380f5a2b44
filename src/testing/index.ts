/** Testing helpers: `import { startScriptedModel } from "durable-agent/testing"`. */
export { startScriptedModel } from "./scripted-model.js";
export type { RawTurn, ScriptedModel, ScriptedModelOptions, ScriptedRequest, ScriptedToolCall, ScriptedTurn, ScriptedUsage, ScriptHandler } from "./scripted-model.js";
export { startDevServer, type DevServer } from "./dev-server.js";
