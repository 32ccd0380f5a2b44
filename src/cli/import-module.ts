/**
 * Importing a user's agent module, TypeScript included. A `.ts` module is imported as it is when
 * the running Node can (its own type stripping, or a loader already registered), else through
 * `tsx` (an optional peer dependency); when neither works, a `UsageError` says what to install.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { UsageError } from "./command.js";

const TYPESCRIPT = /\.[cm]?tsx?$/i;

/** Errors of a native import that a TypeScript loader may fix. */
const LOADER_MAY_FIX = new Set([
  "ERR_UNKNOWN_FILE_EXTENSION",
  "ERR_MODULE_NOT_FOUND",
  "ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX",
  "ERR_INVALID_TYPESCRIPT_SYNTAX",
  "ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING",
]);

interface TsxApi {
  tsImport(specifier: string, parent: string): Promise<unknown>;
}

async function loadTsx(): Promise<TsxApi | undefined> {
  try {
    return (await import("tsx/esm/api" as string)) as TsxApi;
  } catch {
    return undefined;
  }
}

/** Imports the module at `path` (relative to the working directory) and returns its exports. */
export async function importUserModule(path: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(resolve(path)).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!TYPESCRIPT.test(path) || !code || !LOADER_MAY_FIX.has(code)) throw error;
    const tsx = await loadTsx();
    if (!tsx) {
      throw new UsageError(
        `Cannot load the TypeScript module ${path}: Node ${process.versions.node} could not (${code}: ${(error as Error).message.split("\n")[0]}). ` +
          `Install tsx beside durable-agent (\`npm install --save-dev tsx\`), run on Node 22.18 or later (type stripping on by default), ` +
          `or compile the module to JavaScript.`,
      );
    }
    return (await tsx.tsImport(url, import.meta.url)) as Record<string, unknown>;
  }
}
