/** Bundling the library's workflows for workers. */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { bundleWorkflowCode, type BundleOptions } from "@temporalio/worker";

/** The library's workflow module, as source in development and as JavaScript when built. */
export function workflowsPath(): string {
  const source = fileURLToPath(new URL("./workflows/index.ts", import.meta.url));
  return existsSync(source) ? source : fileURLToPath(new URL("./workflows/index.js", import.meta.url));
}

/**
 * Workflow modules loaded once per workflow thread's V8 context rather than once per run (the
 * SDK's `preloadModules`): modules with no state of their own and no workflow API at load time.
 * `core/packing` (and fflate under it, whose load builds its tables: about 0.9 ms of a run's CPU).
 */
export function preloadedWorkflowModules(): string[] {
  const packing = fileURLToPath(new URL("./core/packing.ts", import.meta.url));
  return [existsSync(packing) ? packing : fileURLToPath(new URL("./core/packing.js", import.meta.url))];
}

let bundle: ReturnType<typeof bundleWorkflowCode> | undefined;

/** Bundles the `agentRun` and `agentSession` workflows once per process. */
export function bundleAgentWorkflows(): ReturnType<typeof bundleWorkflowCode> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: workflowsPath(),
    preloadModules: preloadedWorkflowModules(),
    webpackConfigHook: compileSourcesAsBuilt,
    logger: quietBundlerLogger,
  });
  return bundle;
}

/** The ECMAScript version the build compiles to (tsconfig.json's `target`). */
const BUILD_TARGET = "es2022";

type WebpackConfig = Parameters<NonNullable<BundleOptions["webpackConfigHook"]>>[0];

/**
 * Compiles the TypeScript sources in a bundle (the library run from source: tests, benchmarks,
 * development) to the ECMAScript version the build ships, where the SDK's loader compiles them
 * to ES2017. ES2017 has no object spread or private fields, so every spread and `#field` became a
 * helper call that reads globals (`Object.keys`, `Object.defineProperty`), and in the workflow's
 * VM context each read of a global goes through the context's interceptors. Built JavaScript
 * (what the package ships) is bundled as is, so from source the workflow now runs the code users
 * run.
 */
export function compileSourcesAsBuilt(config: WebpackConfig): WebpackConfig {
  for (const rule of config.module?.rules ?? []) {
    const use = rule && typeof rule === "object" ? rule.use : undefined;
    if (!use || typeof use !== "object" || Array.isArray(use) || !String(use.loader).includes("swc-loader")) continue;
    const options = use.options as { jsc?: { target?: string } } | undefined;
    if (options?.jsc) options.jsc.target = BUILD_TARGET;
  }
  return config;
}

/** The bundler's own logging, quiet but for warnings and errors. */
export const quietBundlerLogger = {
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn: (message: string, meta?: object) => console.warn(message, meta ?? ""),
  error: (message: string, meta?: object) => console.error(message, meta ?? ""),
};
