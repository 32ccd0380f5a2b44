/**
 * The edit flags of `durable-agent fork` ("edit and fork"): `--instructions <text>` or
 * `--instructions-file <path>`, `--model <id>`, and `--model-setting key=value` (repeatable), read
 * into `ai.fork()`'s `instructions`, `model` and `modelSettings`. The settings are checked here as
 * a run's are (unknown keys with the library's "did you mean"), so a typo exits 64 before anything
 * connects.
 */
import { readFileSync } from "node:fs";
import type { ModelSettings } from "../core/model-settings.js";
import { AgentOptionsError } from "../errors.js";
import { MODEL_SETTING_KEYS, validateSamplingSettings } from "../models/model-settings.js";
import { checkKnownKeys } from "../options/known-keys.js";
import { UsageError } from "./command.js";

/** What the edit flags ask the fork to change (only what was given). */
export interface ForkEdits {
  /** The fork's instructions (its system prompt), from `--instructions` or `--instructions-file`. */
  instructions?: string;
  /** The fork's model id, from `--model`. */
  model?: string;
  /** Model settings over the recorded run's, from the `--model-setting` pairs. */
  modelSettings?: ModelSettings;
}

/** The edit flags' values, as `parseOptions` gives them. */
export interface ForkEditFlags {
  instructions?: string;
  "instructions-file"?: string;
  model?: string;
  "model-setting"?: string[];
}

/** Reads and checks the edit flags; a bad one is a `UsageError` naming the flag. */
export function forkEdits(flags: ForkEditFlags): ForkEdits {
  const edits: ForkEdits = {};
  const instructions = instructionsOf(flags);
  if (instructions !== undefined) edits.instructions = instructions;
  if (flags.model !== undefined) {
    if (flags.model.trim() === "") throw new UsageError("--model is empty: give a model id, e.g. --model gpt-4o.");
    edits.model = flags.model.trim();
  }
  if (flags["model-setting"]?.length) edits.modelSettings = modelSettingsOf(flags["model-setting"]);
  return edits;
}

function instructionsOf(flags: ForkEditFlags): string | undefined {
  const file = flags["instructions-file"];
  if (flags.instructions !== undefined && file !== undefined)
    throw new UsageError("Give the instructions once: --instructions <text> or --instructions-file <path>, not both.");
  let text = flags.instructions;
  if (file !== undefined) {
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new UsageError(
        `--instructions-file ${file} cannot be read (${code === "ENOENT" ? "no such file" : (code ?? (error as Error).message)}).`,
      );
    }
  }
  if (text !== undefined && text.trim() === "")
    throw new UsageError(
      `${file !== undefined ? `--instructions-file ${file} is` : "--instructions is"} empty: give the fork's instructions (its system prompt).`,
    );
  return text;
}

/**
 * `key=value` pairs as model settings: a number is a number (`temperature=0.3`), `true` and
 * `false` are booleans, a value starting with `{`, `[` or `"` is JSON (`stop=["END"]`,
 * `toolChoice={"tool":"update_plan"}`), anything else a string (`reasoningEffort=low`).
 */
function modelSettingsOf(pairs: string[]): ModelSettings {
  const settings: Record<string, unknown> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf("=");
    const key = equals < 0 ? "" : pair.slice(0, equals).trim();
    if (key === "")
      throw new UsageError(`--model-setting takes key=value, e.g. --model-setting temperature=0.2 (got "${pair}").`);
    if (Object.hasOwn(settings, key)) throw new UsageError(`--model-setting ${key} is given twice: give it once.`);
    settings[key] = valueOf(key, pair.slice(equals + 1).trim());
  }
  try {
    checkKnownKeys(settings, MODEL_SETTING_KEYS, "--model-setting");
    validateSamplingSettings(settings as ModelSettings, "--model-setting");
  } catch (error) {
    if (!AgentOptionsError.isInstance(error)) throw error;
    throw new UsageError(problemOf(error));
  }
  return settings as ModelSettings;
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

function valueOf(key: string, text: string): unknown {
  if (NUMBER.test(text)) return Number(text);
  if (text === "true" || text === "false") return text === "true";
  if (!/^[[{"]/.test(text)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`--model-setting ${key}=${text} is not valid JSON (${(error as Error).message}).`);
  }
}

/** The check's message without its `Invalid option \`…\`: ` head, said of the flag instead. */
function problemOf(error: AgentOptionsError): string {
  const head = `Invalid option \`${error.field}\`: `;
  const problem = error.message.startsWith(head) ? error.message.slice(head.length) : error.message;
  const sentence = /[.?)]$/.test(problem) ? problem : `${problem}.`;
  const setting = "--model-setting.";
  return error.field.startsWith(setting)
    ? `--model-setting ${error.field.slice(setting.length)} ${sentence}`
    : sentence;
}
