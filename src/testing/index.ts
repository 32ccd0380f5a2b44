/** Testing helpers: `import { startScriptedModel } from "durable-agent/testing"`. */
export { startScriptedModel } from "./scripted-model.js";
export type { RawTurn, ScriptedAnswer, ScriptedModel, ScriptedModelOptions, ScriptedRequest, ScriptedToolCall, ScriptedTurn, ScriptHandler, StreamCut } from "./scripted-model.js";
export { startDevServer, type DevServer } from "./dev-server.js";
