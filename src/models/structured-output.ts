/**
 * Worker-side: typed final output. How the model is asked for JSON matching the run's `output`
 * schema (a `json_schema` response format, or the schema in the instructions), and the check of
 * a final answer against it with zod. The workflow only sees the outcome, as data.
 */
import { z } from "zod";
import type { OutputCheck } from "../core/activity-types.js";

/** The output a model call asks for. */
export interface OutputRequest {
  schema: z.ZodType;
  jsonSchema: Record<string, unknown>;
  mode: "json-schema" | "prompt";
  strict: boolean;
}

/** The JSON schema the model is sent for a zod schema (draft 2020-12, `$schema` left out). */
export function outputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(schema, {
    io: "output",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return jsonSchema;
}

const agentSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();
const CACHED_RUN_SCHEMAS = 64;
const runSchemas = new Map<string, z.ZodType>();

/** A run's own schema arrives as JSON schema: rebuilt as zod once per schema (and kept for the run's next trips). */
function zodOf(jsonSchema: Record<string, unknown>): z.ZodType {
  const key = JSON.stringify(jsonSchema);
  let schema = runSchemas.get(key);
  if (!schema) {
    schema = z.fromJSONSchema(jsonSchema as Parameters<typeof z.fromJSONSchema>[0]);
    runSchemas.set(key, schema);
    if (runSchemas.size > CACHED_RUN_SCHEMAS) runSchemas.delete(runSchemas.keys().next().value!);
  }
  return schema;
}

/** What about the call decides how the output is asked for. */
export interface OutputCall {
  /** The call offers tools. */
  hasTools: boolean;
  /** The model's `responseFormatWithTools` setting (default true). */
  responseFormatWithTools?: boolean;
}

/** The agent's options that shape the output request (its `output`, `outputMode`, `outputStrict`). */
export interface OutputOptions {
  /** The output's schema. */
  readonly output?: z.ZodType;
  /** How the model is asked for it (default `"json-schema"`). */
  readonly outputMode?: "json-schema" | "prompt";
  /** Strict JSON schema mode (default true). */
  readonly outputStrict?: boolean;
}

/**
 * The output this call asks for: the run's own schema, else the agent's, else none. A call with
 * tools to a model that cannot combine them with `response_format` asks in the prompt.
 */
export function outputRequestFor(
  agent: { readonly options: OutputOptions },
  runSchema: Record<string, unknown> | undefined,
  call: OutputCall = { hasTools: false },
): OutputRequest | undefined {
  const asked = agent.options.outputMode ?? "json-schema";
  const mode = asked === "json-schema" && call.hasTools && call.responseFormatWithTools === false ? "prompt" : asked;
  const strict = agent.options.outputStrict ?? true;
  if (runSchema) return { schema: zodOf(runSchema), jsonSchema: runSchema, mode, strict };
  const schema = agent.options.output;
  if (!schema) return undefined;
  let jsonSchema = agentSchemas.get(schema);
  if (!jsonSchema) agentSchemas.set(schema, (jsonSchema = outputJsonSchema(schema)));
  return { schema, jsonSchema, mode, strict };
}

/** The request body's `response_format` for the json-schema mode. */
export function responseFormatOf(request: OutputRequest) {
  return {
    type: "json_schema" as const,
    json_schema: { name: "output", schema: request.jsonSchema, strict: request.strict },
  };
}

/** The instructions' addition for the prompt mode. */
export function outputInstructions(request: OutputRequest): string {
  return (
    `When you give your final answer, reply with only a JSON value (no prose, no code fence) that ` +
    `matches this JSON schema:\n${JSON.stringify(request.jsonSchema)}`
  );
}

/** Checks a final answer's text: JSON (a code fence around it is tolerated), valid under the schema. */
export function checkOutput(request: OutputRequest, text: string | null): OutputCheck {
  const body = (text ?? "")
    .trim()
    .replace(/^```(?:json)?\s*\n?([\s\S]*?)\n?```$/i, "$1")
    .trim();
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return { ok: false, issues: `the answer is not JSON (${(error as Error).message}).` };
  }
  const parsed = request.schema.safeParse(value);
  if (!parsed.success) return { ok: false, issues: z.prettifyError(parsed.error).replace(/\n\s*/g, " ") };
  return { ok: true, value: parsed.data };
}
