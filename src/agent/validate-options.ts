import { z } from "zod";
import { durationMs, durationProblem } from "../duration.js";
import { DEFAULT_AGENT_NAME, DEFAULT_MAX_TRIPS } from "../core/constants.js";
import { DEFAULT_LIMITS, MAX_TOOL_INPUT_PLUS_OUTPUT_BYTES } from "../limits.js";
import { McpToolset } from "../mcp/mcp-toolset.js";
import { checkKnownKeys } from "../options/known-keys.js";
import { checkAmount, checkCount, fail } from "../options/option-checks.js";
import {
  ACT_WHEN_ASKED_KEYS,
  AGENT_LIMIT_KEYS,
  AGENT_OPTION_KEYS,
  AGENT_TIMEOUT_KEYS,
  BACKSTOP_KEYS,
  ON_TOOL_REFUSAL_KEYS,
  type AgentOptions,
} from "./options.js";
import { handoffTools } from "./handoff-tools.js";
import { listTools } from "./ai-sdk-tools.js";
import type { Budget } from "../core/usage.js";
import { validateModelSettings, validateToolChoice } from "../models/model-settings.js";
import { checkLanguageModel, looksLikeLanguageModel } from "../models/ai-sdk-model.js";
import { isAiSdkModel, pricingOf, resolveModel, type AgentModel } from "../models/agent-model.js";
import { Memory } from "../memory/define-memory.js";
import { WORKING_MEMORY_TOOL } from "../core/memory.js";

const ON_TOOL_REFUSAL = ["off", "retry-once-with-hint"];
const AGENT = "ai.agent()";

/** Checks `ai.agent()` options, naming the first bad field. */
export function validateAgentOptions(options: AgentOptions): void {
  if (!options || typeof options !== "object") fail("options", "ai.agent() needs an options object");
  checkKnownKeys(options, AGENT_OPTION_KEYS, AGENT);
  if (options.name !== undefined && (typeof options.name !== "string" || !/^[\w.-]{1,100}$/.test(options.name))) {
    fail("name", `must be 1-100 letters, digits, "_", "-" or "." (got ${JSON.stringify(options.name)})`);
  }
  if (
    options.description !== undefined &&
    (typeof options.description !== "string" || options.description.length > 1024)
  ) {
    const got =
      typeof options.description === "string" ? `${options.description.length} characters` : typeof options.description;
    fail("description", `must be a string of at most 1,024 characters (got ${got})`);
  }
  validateModel(options);
  const tools = listTools(options.tools);
  const seen = new Set<string>();
  const servers = new Set<string>();
  for (const tool of [...tools, ...handoffTools(options.handoffs)]) {
    if (tool instanceof McpToolset) {
      if (servers.has(tool.name))
        fail("tools", `two MCP toolsets are named "${tool.name}"; give each ai.mcp() a unique name`);
      servers.add(tool.name);
      continue;
    }
    if (!tool || typeof tool.name !== "string" || typeof tool.execute !== "function" || !tool.jsonSchema) {
      fail("tools", "each entry must come from ai.tool({ name, input, execute }) or ai.mcp({ name, ... })");
    }
    if (seen.has(tool.name)) fail("tools", `two tools are named "${tool.name}"; tool names must be unique`);
    seen.add(tool.name);
    if (tool.providerTool && !isAiSdkModel(resolveModel(options.model)))
      fail(
        `tools.${tool.name}`,
        `is a provider tool (${tool.providerTool.id}): it runs at the provider, so the model must be an AI SDK model of it (ai.model())`,
      );
  }
  if (options.memory !== undefined && !(options.memory instanceof Memory))
    fail("memory", "must come from ai.memory({ store, embedder, workingMemory?, recall? })");
  if (options.memory?.workingMemory && seen.has(WORKING_MEMORY_TOOL))
    fail(
      "tools",
      `a tool is named "${WORKING_MEMORY_TOOL}", the name of the working memory's built-in tool; rename it`,
    );
  checkCount("maxTrips", options.maxTrips, 1);
  if (
    options.version !== undefined &&
    (typeof options.version !== "string" || !/^[\x21-\x7e]{1,200}$/.test(options.version))
  ) {
    fail(
      "version",
      `must be 1-200 printable characters without spaces, e.g. "coach@2026-12-01" (got ${JSON.stringify(options.version)})`,
    );
  }
  if (
    options.onDefinitionChange !== undefined &&
    options.onDefinitionChange !== "continue" &&
    options.onDefinitionChange !== "fail"
  ) {
    fail("onDefinitionChange", `must be "continue" or "fail" (got ${JSON.stringify(options.onDefinitionChange)})`);
  }
  if (options.timeouts !== undefined) {
    if (typeof options.timeouts !== "object" || options.timeouts === null)
      fail("timeouts", "must be an object { model?, tool?, heartbeat? }");
    checkKnownKeys(options.timeouts, AGENT_TIMEOUT_KEYS, AGENT, "timeouts");
    for (const [key, value] of Object.entries(options.timeouts)) {
      if (value !== undefined && durationMs(value, true) === undefined)
        fail(`timeouts.${key}`, durationProblem(value, true));
    }
  }
  if (
    options.modelExecution !== undefined &&
    options.modelExecution !== "activity" &&
    options.modelExecution !== "local"
  ) {
    fail("modelExecution", `is "activity" or "local" (got ${JSON.stringify(options.modelExecution)})`);
  }
  validateContractOptions(options, seen, servers.size > 0);
  validateLimits(options);
  const model = resolveModel(options.model);
  if (!isAiSdkModel(model)) validateModelSettings(model.settings, "model");
  validateToolChoice(model.settings, seen, "model");
  validateBudget(options.budget, "budget", options.model);
  validateOutputOptions(options);
  if (options.contextSchema !== undefined && !isZodSchema(options.contextSchema))
    fail("contextSchema", "must be a zod (v4) schema, e.g. z.object({ userId: z.string() })");
  if (
    options.instructions !== undefined &&
    typeof options.instructions !== "string" &&
    typeof options.instructions !== "function"
  ) {
    fail("instructions", "must be a string or a function ({ input, context, trip, agent }) => string");
  }
}

/** The model is `ai.openai()`'s, `ai.model()`'s, or an AI SDK language model of a supported specification version. */
function validateModel(options: AgentOptions): void {
  const model = options.model as unknown;
  if (!model || typeof model !== "object") {
    fail(
      "model",
      `agent "${options.name ?? DEFAULT_AGENT_NAME}" needs a model, e.g. ai.openai("gpt-4o-mini") or an AI ` +
        `SDK language model such as anthropic("claude-sonnet-4-5")`,
    );
  }
  if (looksLikeLanguageModel(model)) return checkLanguageModel(model, "model");
  if ("languageModel" in model)
    return checkLanguageModel((model as { languageModel: unknown }).languageModel, "model.languageModel");
  if (
    typeof (model as { modelId?: unknown }).modelId !== "string" ||
    typeof (model as { settings?: unknown }).settings !== "object"
  ) {
    checkLanguageModel(model, "model"); // names what was expected
  }
}

/** Whether a value is a zod (v4) schema. */
export function isZodSchema(value: unknown): value is z.ZodType {
  return (
    typeof value === "object" &&
    value !== null &&
    "_zod" in value &&
    typeof (value as z.ZodType).safeParse === "function"
  );
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
  if (options.outputStrict !== undefined && typeof options.outputStrict !== "boolean")
    fail("outputStrict", "must be true or false");
  const invalid = options.onInvalidOutput;
  if (invalid === undefined) return;
  if (typeof invalid !== "object" || invalid === null)
    fail("onInvalidOutput", "must be { retries?, hint?, onFailure? }");
  for (const key of Object.keys(invalid))
    if (!["retries", "hint", "onFailure"].includes(key))
      fail(`onInvalidOutput.${key}`, "is not an option (they are retries, hint, onFailure)");
  checkCount("onInvalidOutput.retries", invalid.retries, 0);
  if (invalid.hint !== undefined && typeof invalid.hint !== "string" && typeof invalid.hint !== "function")
    fail("onInvalidOutput.hint", "must be a string or a function ({ issues, text }) => string");
  if (invalid.onFailure !== undefined && invalid.onFailure !== "error" && invalid.onFailure !== "result") {
    fail("onInvalidOutput.onFailure", `must be "error" or "result" (got ${JSON.stringify(invalid.onFailure)})`);
  }
}

/** Checks a budget (the agent's, or a run's); `maxCostUsd` needs the model's pricing. */
export function validateBudget(budget: Budget | undefined, field: string, model: AgentModel): void {
  if (budget === undefined) return;
  if (typeof budget !== "object" || budget === null) fail(field, "must be { maxTokens?, maxCostUsd? }");
  for (const key of Object.keys(budget))
    if (key !== "maxTokens" && key !== "maxCostUsd")
      fail(`${field}.${key}`, "is not a budget field (they are maxTokens, maxCostUsd)");
  checkCount(`${field}.maxTokens`, budget.maxTokens, 1);
  checkAmount(`${field}.maxCostUsd`, budget.maxCostUsd);
  if (budget.maxCostUsd !== undefined && !pricingOf(model)) {
    const call = isAiSdkModel(resolveModel(model)) ? "ai.model(languageModel" : `ai.openai("${model.modelId}"`;
    fail(
      `${field}.maxCostUsd`,
      `needs prices to know what a call costs: ${call}, { pricing: { inputPerMillion, outputPerMillion } })`,
    );
  }
}

function validateLimits(options: AgentOptions): void {
  const limits = options.limits;
  if (limits === undefined) return;
  if (typeof limits !== "object" || limits === null)
    fail("limits", "must be an object { toolCallsPerAnswer?, toolInputBytes?, toolOutputBytes? }");
  checkKnownKeys(limits, AGENT_LIMIT_KEYS, AGENT, "limits");
  checkCount("limits.toolCallsPerAnswer", limits.toolCallsPerAnswer, 1);
  checkCount("limits.toolInputBytes", limits.toolInputBytes, 1);
  checkCount("limits.toolOutputBytes", limits.toolOutputBytes, 256);
  const input = limits.toolInputBytes ?? DEFAULT_LIMITS.toolInputBytes;
  const output = limits.toolOutputBytes ?? DEFAULT_LIMITS.toolOutputBytes;
  if (input + output > MAX_TOOL_INPUT_PLUS_OUTPUT_BYTES) {
    fail(
      limits.toolOutputBytes !== undefined ? "limits.toolOutputBytes" : "limits.toolInputBytes",
      `toolInputBytes + toolOutputBytes is ${input + output}, over ${MAX_TOOL_INPUT_PLUS_OUTPUT_BYTES}: a ` +
        `tool call's record carries both in one Temporal payload (2 MB limit)`,
    );
  }
}

/** With MCP toolsets, tool names are known only when a run lists them: `mcp.list` checks `requiredTools` then. */
function validateContractOptions(options: AgentOptions, toolNames: Set<string>, hasMcp: boolean): void {
  const act = options.actWhenAsked;
  if (act !== undefined) {
    if (typeof act !== "object" || act === null)
      fail("actWhenAsked", "must be an object { intents, requiredTools, ... }");
    checkKnownKeys(act, ACT_WHEN_ASKED_KEYS, AGENT, "actWhenAsked");
    if (!Array.isArray(act.intents) || act.intents.length === 0)
      fail("actWhenAsked.intents", "must be a non-empty array");
    act.intents.forEach((intent, i) => {
      if (typeof intent !== "string" && !(intent instanceof RegExp) && typeof intent !== "function") {
        fail(`actWhenAsked.intents[${i}]`, "each intent is a string, a RegExp or (input) => boolean");
      }
    });
    if (!Array.isArray(act.requiredTools) || act.requiredTools.length === 0)
      fail("actWhenAsked.requiredTools", "must be a non-empty array of tool names");
    for (const name of act.requiredTools) {
      if (!toolNames.has(name) && !hasMcp)
        fail(
          "actWhenAsked.requiredTools",
          `names "${name}", which is not one of the agent's tools (${[...toolNames].join(", ") || "none"})`,
        );
    }
    if (act.require !== undefined && act.require !== "any" && act.require !== "all")
      fail("actWhenAsked.require", `must be "any" or "all" (got ${JSON.stringify(act.require)})`);
    if (act.hint !== undefined && typeof act.hint !== "string" && typeof act.hint !== "function")
      fail("actWhenAsked.hint", "must be a string or a function");
    checkCount("actWhenAsked.maxReprompts", act.maxReprompts, 0);
  }
  const refusal = options.onToolRefusal;
  if (refusal !== undefined) {
    if (typeof refusal === "string") {
      if (!ON_TOOL_REFUSAL.includes(refusal))
        fail("onToolRefusal", `must be "off", "retry-once-with-hint" or an object (got ${JSON.stringify(refusal)})`);
    } else if (typeof refusal !== "object" || refusal === null) {
      fail("onToolRefusal", `must be "off", "retry-once-with-hint" or an object`);
    } else {
      checkKnownKeys(refusal, ON_TOOL_REFUSAL_KEYS, AGENT, "onToolRefusal");
      checkCount("onToolRefusal.retries", refusal.retries, 0);
      if (refusal.hint !== undefined && typeof refusal.hint !== "function")
        fail("onToolRefusal.hint", "must be a function ({ tool, reason }) => string");
      if (refusal.isRefusal !== undefined && typeof refusal.isRefusal !== "function")
        fail("onToolRefusal.isRefusal", "must be a function (call) => string | false");
    }
  }
  const backstops = options.backstops;
  if (backstops !== undefined) {
    if (!Array.isArray(backstops)) fail("backstops", "must be an array");
    const names = new Set<string>();
    backstops.forEach((backstop, i) => {
      if (typeof backstop === "object" && backstop !== null)
        checkKnownKeys(backstop, BACKSTOP_KEYS, AGENT, `backstops[${i}]`);
      if (typeof backstop?.name !== "string" || backstop.name === "")
        fail(`backstops[${i}].name`, "every backstop needs a name");
      if (names.has(backstop.name)) fail(`backstops[${i}].name`, `two backstops are named "${backstop.name}"`);
      names.add(backstop.name);
      if (backstop.phase !== undefined && backstop.phase !== "before" && backstop.phase !== "after") {
        fail(`backstops[${i}].phase`, `must be "before" or "after" (got ${JSON.stringify(backstop.phase)})`);
      }
      if (typeof backstop.detect !== "function") fail(`backstops[${i}].detect`, "must be a function (turn) => boolean");
      if (typeof backstop.run !== "function")
        fail(`backstops[${i}].run`, "must be a function (context) => { prompt? }");
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
