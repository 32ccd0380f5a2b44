/**
 * `agent.version`: a stable fingerprint of what decides an agent's behaviour, the same on every
 * machine for the same definition. Pure: a function of the definition only (no paths, ports,
 * keys, clocks). Worker-side; the workflow only records the value a worker reports.
 *
 * Covered: the instructions (text, or the function's source), the model's provider, id and request
 * settings (not `baseURL`, `apiKey` or `pricing`: where the model is and what it costs differ per
 * machine, not what it does; an AI SDK model by its `provider` and `modelId`), each tool's name, description, JSON schema and approval settings,
 * MCP toolsets' names (their tools are listed at run time, so not their tools), the contract
 * options (callbacks by their source), the output schema and mode, and handoffs and sub-agents
 * by their own versions. Not covered: what a function's source does not show (the code it calls,
 * closures, environment variables), tools' `execute` bodies, and MCP servers' tool lists.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { describeModel } from "../models/agent-model.js";
import { approvalTimeoutMsOf, type Tool } from "./define-tool.js";
import type { AgentOptions } from "./options.js";

/** What a fingerprint is taken of: an agent's options, tools (handoff tools included) and MCP toolsets. */
export interface VersionedDefinition {
  readonly name: string;
  readonly options: Readonly<AgentOptions>;
  readonly tools: readonly Tool[];
  readonly mcpToolsets: ReadonlyArray<{ readonly name: string }>;
}

/** Hex digits of the SHA-256 kept in a version: 64 bits, ample for telling definitions apart. */
const VERSION_HEX_DIGITS = 16;

/** The agent's version: `options.version` when given, else the fingerprint of its definition. */
export function agentVersionOf(
  agent: VersionedDefinition,
  versionOf: (other: { readonly name: string }) => string,
): string {
  if (agent.options.version !== undefined) return agent.options.version;
  const hash = createHash("sha256")
    .update(canonicalJson(describeDefinition(agent, versionOf)))
    .digest("hex");
  return hash.slice(0, VERSION_HEX_DIGITS);
}

/** The parts of a definition that decide behaviour, as plain data. */
function describeDefinition(
  agent: VersionedDefinition,
  versionOf: (other: { readonly name: string }) => string,
): unknown {
  const { options } = agent;
  return {
    name: agent.name,
    instructions: options.instructions,
    model: describeModel(options.model),
    tools: [...agent.tools]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((tool) => ({
        name: tool.name,
        description: tool.description,
        schema: tool.jsonSchema,
        needsApproval: tool.needsApproval,
        approvalTimeoutMs: approvalTimeoutMsOf(tool), // in ms, as versions were fingerprinted before
        ...(tool.subAgent ? { subAgent: versionOf(tool.subAgent.agent) } : {}),
        ...(tool.providerTool ? { providerTool: tool.providerTool } : {}), // its id and args
        ...(tool.handoff
          ? { handoff: { agent: versionOf(tool.handoff.agent), inputFilter: tool.handoff.inputFilter } }
          : {}),
      })),
    mcp: agent.mcpToolsets.map((toolset) => toolset.name).sort(),
    contract: {
      maxTrips: options.maxTrips,
      actWhenAsked: options.actWhenAsked,
      onToolRefusal: options.onToolRefusal,
      backstops: options.backstops,
      onInvalidOutput: options.onInvalidOutput,
      budget: options.budget,
      limits: options.limits,
      onDefinitionChange: options.onDefinitionChange,
    },
    output: options.output
      ? {
          schema: z.toJSONSchema(options.output, { io: "output", unrepresentable: "any" }),
          mode: options.outputMode,
          strict: options.outputStrict,
        }
      : undefined,
  };
}

/** JSON with object keys sorted, functions as their source and regular expressions as their literal: the same text for the same definition. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(normalize(value, new WeakSet()));
}

/**
 * A function's source without the whitespace a transpiler may add or drop (tsx prints
 * `({input})=>`, esbuild in vitest `({ input }) =>`): outside string and template literals, runs of
 * whitespace go, except one space between two word characters (`return x`).
 */
export function compactSource(source: string): string {
  let out = "";
  let quote: string | undefined;
  let pendingSpace = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (quote) {
      out += char;
      if (char === "\\") out += source[++i] ?? "";
      else if (char === quote) quote = undefined;
      continue;
    }
    if (/\s/.test(char)) {
      pendingSpace = true;
      continue;
    }
    if (pendingSpace && /\w/.test(char) && /\w$/.test(out)) out += " ";
    pendingSpace = false;
    if (char === '"' || char === "'" || char === "`") quote = char;
    out += char;
  }
  return out;
}

function normalize(value: unknown, seen: WeakSet<object>): unknown {
  if (typeof value === "function") return { function: compactSource(value.toString()) };
  if (value instanceof RegExp) return { regexp: value.toString() };
  if (typeof value === "bigint") return value.toString();
  if (value === null || typeof value !== "object") return value;
  if (seen.has(value)) return "[circular]";
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => normalize(item, seen) ?? null);
    if (value instanceof z.ZodType) return { schema: z.toJSONSchema(value, { unrepresentable: "any" }) };
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const item = normalize((value as Record<string, unknown>)[key], seen);
      if (item !== undefined) out[key] = item;
    }
    return out;
  } finally {
    seen.delete(value);
  }
}
