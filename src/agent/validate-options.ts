import { z } from "zod";
import { AgentOptionsError } from "../errors.js";
import { DEFAULT_AGENT_NAME, DEFAULT_MAX_TRIPS } from "../contract/constants.js";
import { DEFAULT_LIMITS, MAX_TOOL_INPUT_PLUS_OUTPUT_BYTES } from "../limits.js";
import { McpToolset } from "../mcp/mcp-toolset.js";
import { checkKnownKeys } from "./known-keys.js";
import { ACT_WHEN_ASKED_KEYS, AGENT_LIMIT_KEYS, AGENT_OPTION_KEYS, AGENT_TIMEOUT_KEYS, BACKSTOP_KEYS, ON_TOOL_REFUSAL_KEYS, type AgentOptions } from "./options.js";
import { handoffTools } from "../subagents/handoff.js";
import type { Budget } from "../contract/usage.js";
import type { ModelReference, ModelSettings, OpenAIModelSettings } from "../models/openai-model.js";

const ON_TOOL_REFUSAL = ["off", "retry-once-with-hint"];
const AGENT = "ai.agent()";

function fail(field: string, problem: string): never {
  throw new AgentOptionsError(field, problem);
}

function checkCount(field: string, value: unknown, min: number): void {
  if (value !== undefined && (!Number.isInteger(value) || (value as number) < min)) {
    fail(field, `must be a whole number ≥ ${min} (got ${JSON.stringify(value)})`);
  }
}

/** Checks `ai.agent()` options, naming the first bad field. */
export function validateAgentOptions(options: AgentOptions): void {
  if (!options || typeof options !== "object") fail("options", "ai.agent() needs an options object");
  checkKnownKeys(options, AGENT_OPTION_KEYS, AGENT);
  if (options.name !== undefined && (typeof options.name !== "string" || !/^[\w.-]{1,100}$/.test(options.name))) {
    fail("name", `must be 1-100 letters, digits, "_", "-" or "." (got ${JSON.stringify(options.name)})`);
  }
  const model = options.model as unknown;
  if (!model || typeof model !== "object" || typeof (model as { modelId?: unknown }).modelId !== "string") {
    fail("model", `agent "${options.name ?? DEFAULT_AGENT_NAME}" needs a model, e.g. ai.openai("gpt-4o-mini")`);
  }
  const tools = options.tools ?? [];
  if (!Array.isArray(tools)) fail("tools", "must be an array of ai.tool() definitions");
  const seen = new Set<string>();
  const servers = new Set<string>();
  for (const tool of [...tools, ...handoffTools(options.handoffs)]) {
    if (tool instanceof McpToolset) {
      if (servers.has(tool.name)) fail("tools", `two MCP toolsets are named "${tool.name}"; give each ai.mcp() a unique name`);
      servers.add(tool.name);
      continue;
    }
    if (!tool || typeof tool.name !== "string" || typeof tool.execute !== "function" || !tool.jsonSchema) {
      fail("tools", "each entry must come from ai.tool({ name, input, execute }) or ai.mcp({ name, ... })");
    }
    if (seen.has(tool.name)) fail("tools", `two tools are named "${tool.name}"; tool names must be unique`);
    seen.add(tool.name);
  }
  checkCount("maxTrips", options.maxTrips, 1);
  if (options.timeouts !== undefined) {
    if (typeof options.timeouts !== "object" || options.timeouts === null) fail("timeouts", "must be an object { model?, tool?, heartbeat? }");
    checkKnownKeys(options.timeouts, AGENT_TIMEOUT_KEYS, AGENT, "timeouts");
  }
  if (options.modelExecution !== undefined && options.modelExecution !== "activity" && options.modelExecution !== "local") {
    fail("modelExecution", `is "activity" or "local" (got ${JSON.stringify(options.modelExecution)})`);
  }
  validateContractOptions(options, seen, servers.size > 0);
  validateLimits(options);
  validateModelSettings((model as ModelReference).settings, "model");
  validateToolChoice((model as ModelReference).settings, seen, "model");
  validateBudget(options.budget, "budget", options.model);
  validateOutputOptions(options);
  if (options.contextSchema !== undefined && !isZodSchema(options.contextSchema)) fail("contextSchema", "must be a zod (v4) schema, e.g. z.object({ userId: z.string() })");
  if (options.instructions !== undefined && typeof options.instructions !== "string" && typeof options.instructions !== "function") {
    fail("instructions", "must be a string or a function ({ input, context, trip, agent }) => string");
  }
}

/** Whether a value is a zod (v4) schema. */
export function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === "object" && value !== null && "_zod" in value && typeof (value as z.ZodType).safeParse === "function";
}

/** Checks a run's or an agent's `output` schema; `field` is where it was given. */
export function validateOutputSchema(schema: unknown, field: string): void {
  if (schema === undefined) return;
  if (!isZodSchema(schema)) fail(field, "must be a zod (v4) schema, e.g. z.object({ ... })");
  try {
    z.toJSONSchema(schema, { io: "output" });
  } catch (error) {
    fail(field, `cannot be sent to the model as JSON schema (${(error as Error).message})`);
  }
}

function validateOutputOptions(options: AgentOptions): void {
  validateOutputSchema(options.output, "output");
  if (options.outputMode !== undefined && options.outputMode !== "json-schema" && options.outputMode !== "prompt") {
    fail("outputMode", `must be "json-schema" or "prompt" (got ${JSON.stringify(options.outputMode)})`);
  }
  if (options.outputStrict !== undefined && typeof options.outputStrict !== "boolean") fail("outputStrict", "must be true or false");
  const invalid = options.onInvalidOutput;
  if (invalid === undefined) return;
  if (typeof invalid !== "object" || invalid === null) fail("onInvalidOutput", "must be { retries?, hint?, onFailure? }");
  for (const key of Object.keys(invalid)) if (!["retries", "hint", "onFailure"].includes(key)) fail(`onInvalidOutput.${key}`, "is not an option (they are retries, hint, onFailure)");
  checkCount("onInvalidOutput.retries", invalid.retries, 0);
  if (invalid.hint !== undefined && typeof invalid.hint !== "string" && typeof invalid.hint !== "function") fail("onInvalidOutput.hint", "must be a string or a function ({ issues, text }) => string");
  if (invalid.onFailure !== undefined && invalid.onFailure !== "error" && invalid.onFailure !== "result") {
    fail("onInvalidOutput.onFailure", `must be "error" or "result" (got ${JSON.stringify(invalid.onFailure)})`);
  }
}

function checkAmount(field: string, value: unknown): void {
  if (value !== undefined && (typeof value !== "number" || !Number.isFinite(value) || value < 0)) fail(field, `must be a number ≥ 0 (got ${JSON.stringify(value)})`);
}

function checkNumber(field: string, value: unknown, min: number, max: number): void {
  if (value !== undefined && (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max)) fail(field, `must be a number from ${min} to ${max} (got ${JSON.stringify(value)})`);
}

const TOOL_CHOICES = ["auto", "required", "none"];
const REASONING_EFFORTS = ["minimal", "low", "medium", "high"];

/** Checks the sampling and tool settings (`ai.openai` settings, or a run's `modelSettings`); `field` is where they were given. */
export function validateSamplingSettings(settings: ModelSettings, field: string): void {
  checkNumber(`${field}.temperature`, settings.temperature, 0, 2);
  checkCount(`${field}.maxTokens`, settings.maxTokens, 1);
  checkNumber(`${field}.topP`, settings.topP, 0, 1);
  if (settings.seed !== undefined && !Number.isInteger(settings.seed)) fail(`${field}.seed`, `must be a whole number (got ${JSON.stringify(settings.seed)})`);
  checkNumber(`${field}.presencePenalty`, settings.presencePenalty, -2, 2);
  checkNumber(`${field}.frequencyPenalty`, settings.frequencyPenalty, -2, 2);
  const stop = settings.stop;
  if (stop !== undefined && typeof stop !== "string" && !(Array.isArray(stop) && stop.length <= 4 && stop.every((s) => typeof s === "string"))) {
    fail(`${field}.stop`, "must be a string or an array of up to 4 strings");
  }
  if (settings.reasoningEffort !== undefined && !REASONING_EFFORTS.includes(settings.reasoningEffort)) {
    fail(`${field}.reasoningEffort`, `must be one of ${REASONING_EFFORTS.join(", ")} (got ${JSON.stringify(settings.reasoningEffort)})`);
  }
  if (settings.parallelToolCalls !== undefined && typeof settings.parallelToolCalls !== "boolean") fail(`${field}.parallelToolCalls`, "must be true or false");
  if (settings.resetToolChoice !== undefined && typeof settings.resetToolChoice !== "boolean") fail(`${field}.resetToolChoice`, "must be true or false");
  const choice = settings.toolChoice as unknown;
  const isTool = typeof choice === "object" && choice !== null && typeof (choice as { tool?: unknown }).tool === "string";
  if (choice !== undefined && !TOOL_CHOICES.includes(choice as string) && !isTool) fail(`${field}.toolChoice`, `must be "auto", "required", "none" or { tool: name } (got ${JSON.stringify(choice)})`);
  const extra = settings.extraBody as unknown;
  if (extra !== undefined && (typeof extra !== "object" || extra === null || Array.isArray(extra))) fail(`${field}.extraBody`, "must be an object of request body fields");
}

/** A `toolChoice` of `{ tool }` must name one of the agent's tools. */
export function validateToolChoice(settings: ModelSettings | undefined, toolNames: Set<string>, field: string): void {
  const choice = settings?.toolChoice;
  if (typeof choice === "object" && !toolNames.has(choice.tool)) fail(`${field}.toolChoice`, `names "${choice.tool}", which is not one of the agent's tools (${[...toolNames].join(", ") || "none"})`);
}

/** Checks the settings of `ai.openai(id, settings)`; `field` is where they were given. */
export function validateModelSettings(settings: OpenAIModelSettings | undefined, field: string): void {
  if (settings === undefined) return;
  if (typeof settings !== "object" || settings === null) fail(field, "model settings must be an object");
  validateSamplingSettings(settings, field);
  if (settings.responseFormatWithTools !== undefined && typeof settings.responseFormatWithTools !== "boolean") fail(`${field}.responseFormatWithTools`, "must be true or false");
  const pricing = settings.pricing;
  if (pricing !== undefined) {
    if (typeof pricing !== "object" || pricing === null) fail(`${field}.pricing`, "must be { inputPerMillion, outputPerMillion, cachedInputPerMillion? }");
    for (const key of Object.keys(pricing)) {
      if (!["inputPerMillion", "outputPerMillion", "cachedInputPerMillion"].includes(key)) fail(`${field}.pricing.${key}`, "is not a price (prices are inputPerMillion, outputPerMillion, cachedInputPerMillion)");
    }
    if (pricing.inputPerMillion === undefined || pricing.outputPerMillion === undefined) fail(`${field}.pricing`, "needs inputPerMillion and outputPerMillion (US dollars per million tokens)");
    checkAmount(`${field}.pricing.inputPerMillion`, pricing.inputPerMillion);
    checkAmount(`${field}.pricing.outputPerMillion`, pricing.outputPerMillion);
    checkAmount(`${field}.pricing.cachedInputPerMillion`, pricing.cachedInputPerMillion);
  }
}

/** Checks a budget (the agent's, or a run's); `maxCostUsd` needs the model's pricing. */
export function validateBudget(budget: Budget | undefined, field: string, model: ModelReference): void {
  if (budget === undefined) return;
  if (typeof budget !== "object" || budget === null) fail(field, "must be { maxTokens?, maxCostUsd? }");
  for (const key of Object.keys(budget)) if (key !== "maxTokens" && key !== "maxCostUsd") fail(`${field}.${key}`, "is not a budget field (they are maxTokens, maxCostUsd)");
  checkCount(`${field}.maxTokens`, budget.maxTokens, 1);
  checkAmount(`${field}.maxCostUsd`, budget.maxCostUsd);
  if (budget.maxCostUsd !== undefined && !model.settings?.pricing) {
    fail(`${field}.maxCostUsd`, `needs prices to know what a call costs: ai.openai("${model.modelId}", { pricing: { inputPerMillion, outputPerMillion } })`);
  }
}

function validateLimits(options: AgentOptions): void {
  const limits = options.limits;
  if (limits === undefined) return;
  if (typeof limits !== "object" || limits === null) fail("limits", "must be an object { toolCallsPerAnswer?, toolInputBytes?, toolOutputBytes? }");
  checkKnownKeys(limits, AGENT_LIMIT_KEYS, AGENT, "limits");
  checkCount("limits.toolCallsPerAnswer", limits.toolCallsPerAnswer, 1);
  checkCount("limits.toolInputBytes", limits.toolInputBytes, 1);
  checkCount("limits.toolOutputBytes", limits.toolOutputBytes, 256);
  const input = limits.toolInputBytes ?? DEFAULT_LIMITS.toolInputBytes;
  const output = limits.toolOutputBytes ?? DEFAULT_LIMITS.toolOutputBytes;
  if (input + output > MAX_TOOL_INPUT_PLUS_OUTPUT_BYTES) {
    fail(
      limits.toolOutputBytes !== undefined ? "limits.toolOutputBytes" : "limits.toolInputBytes",
      `toolInputBytes + toolOutputBytes is ${input + output}, over ${MAX_TOOL_INPUT_PLUS_OUTPUT_BYTES}: a tool call's record carries both in one Temporal payload (2 MB limit)`,
    );
  }
}

/** With MCP toolsets, tool names are known only when a run lists them: `mcp.list` checks `requiredTools` then. */
function validateContractOptions(options: AgentOptions, toolNames: Set<string>, hasMcp: boolean): void {
  const act = options.actWhenAsked;
  if (act !== undefined) {
    if (typeof act !== "object" || act === null) fail("actWhenAsked", "must be an object { intents, requiredTools, ... }");
    checkKnownKeys(act, ACT_WHEN_ASKED_KEYS, AGENT, "actWhenAsked");
    if (!Array.isArray(act.intents) || act.intents.length === 0) fail("actWhenAsked.intents", "must be a non-empty array");
    act.intents.forEach((intent, i) => {
      if (typeof intent !== "string" && !(intent instanceof RegExp) && typeof intent !== "function") {
        fail(`actWhenAsked.intents[${i}]`, "each intent is a string, a RegExp or (input) => boolean");
      }
    });
    if (!Array.isArray(act.requiredTools) || act.requiredTools.length === 0) fail("actWhenAsked.requiredTools", "must be a non-empty array of tool names");
    for (const name of act.requiredTools) {
      if (!toolNames.has(name) && !hasMcp) fail("actWhenAsked.requiredTools", `names "${name}", which is not one of the agent's tools (${[...toolNames].join(", ") || "none"})`);
    }
    if (act.require !== undefined && act.require !== "any" && act.require !== "all") fail("actWhenAsked.require", `must be "any" or "all" (got ${JSON.stringify(act.require)})`);
    if (act.hint !== undefined && typeof act.hint !== "string" && typeof act.hint !== "function") fail("actWhenAsked.hint", "must be a string or a function");
    checkCount("actWhenAsked.maxReprompts", act.maxReprompts, 0);
  }
  const refusal = options.onToolRefusal;
  if (refusal !== undefined) {
    if (typeof refusal === "string") {
      if (!ON_TOOL_REFUSAL.includes(refusal)) fail("onToolRefusal", `must be "off", "retry-once-with-hint" or an object (got ${JSON.stringify(refusal)})`);
    } else if (typeof refusal !== "object" || refusal === null) {
      fail("onToolRefusal", `must be "off", "retry-once-with-hint" or an object`);
    } else {
      checkKnownKeys(refusal, ON_TOOL_REFUSAL_KEYS, AGENT, "onToolRefusal");
      checkCount("onToolRefusal.retries", refusal.retries, 0);
      if (refusal.hint !== undefined && typeof refusal.hint !== "function") fail("onToolRefusal.hint", "must be a function ({ tool, reason }) => string");
      if (refusal.isRefusal !== undefined && typeof refusal.isRefusal !== "function") fail("onToolRefusal.isRefusal", "must be a function (call) => string | false");
    }
  }
  const backstops = options.backstops;
  if (backstops !== undefined) {
    if (!Array.isArray(backstops)) fail("backstops", "must be an array");
    const names = new Set<string>();
    backstops.forEach((backstop, i) => {
      if (typeof backstop === "object" && backstop !== null) checkKnownKeys(backstop, BACKSTOP_KEYS, AGENT, `backstops[${i}]`);
      if (typeof backstop?.name !== "string" || backstop.name === "") fail(`backstops[${i}].name`, "every backstop needs a name");
      if (names.has(backstop.name)) fail(`backstops[${i}].name`, `two backstops are named "${backstop.name}"`);
      names.add(backstop.name);
      if (backstop.phase !== undefined && backstop.phase !== "before" && backstop.phase !== "after") {
        fail(`backstops[${i}].phase`, `must be "before" or "after" (got ${JSON.stringify(backstop.phase)})`);
      }
      if (typeof backstop.detect !== "function") fail(`backstops[${i}].detect`, "must be a function (turn) => boolean");
      if (typeof backstop.run !== "function") fail(`backstops[${i}].run`, "must be a function (context) => { prompt? }");
    });
  }
}

/** The agent's name, defaulted. */
export function agentName(options: AgentOptions): string {
  return options.name ?? DEFAULT_AGENT_NAME;
}

/** The agent's trip bound, defaulted. */
export function maxTripsOf(options: AgentOptions): number {
  return options.maxTrips ?? DEFAULT_MAX_TRIPS;
}
