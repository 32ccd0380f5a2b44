/**
 * Starts the example's scripted model (script.ts) on a fixed port, so the example runs with no
 * model account: `npm run scripted-model`, then start the worker with
 * `OPENAI_BASE_URL=http://127.0.0.1:4010/v1`.
 */
import { startScriptedModel } from "durable-agent/testing";
import { chatScript, PACE } from "./script.js";

const port = Number(process.env.PORT ?? 4010);
const model = await startScriptedModel(chatScript, { ...PACE, port });
console.log(`Scripted model at ${model.baseURL}: start the worker with OPENAI_BASE_URL=${model.baseURL}`);
