/**
 * What importing one module loads, seen from a fresh `node` process: every file an ESM import
 * resolved to (through a resolve hook that records each URL) and every CommonJS module `require`
 * loaded (`require.cache`). Used by `npm run bench:import` and test/root-import.test.ts.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** One import, measured in its own process. */
export interface ImportProbe {
  /** Milliseconds from just before `import()` to its settling. */
  importMs: number;
  /** CPU time (user and system) the import took, in milliseconds: steadier than `importMs` on a busy machine. */
  cpuMs: number;
  /** Resident set size added by the import, in bytes. */
  rssBytes: number;
  /** V8 heap used added by the import, in bytes. */
  heapBytes: number;
  /** Every file loaded (absolute paths, deduplicated, sorted); only when asked to record modules. */
  modules?: string[];
}

/** How to start the probing process. */
export interface ProbeOptions {
  /** What to import: a bare specifier ("durable-agent") or a file path. */
  specifier: string;
  /** Node flags before the script, e.g. `["--import", "tsx", "--conditions=durable-agent-source"]`. */
  nodeArgs?: string[];
  /** Record every loaded file (the hook itself costs time and memory, so timed runs leave it off). */
  recordModules?: boolean;
  /** The working directory (a bare specifier resolves from here). Default the current one. */
  cwd?: string;
}

// The resolve hook, registered in the probing process: appends every resolved file URL to a file,
// synchronously, so the list is whole when the import settles.
const HOOK = `
import { appendFileSync } from "node:fs";
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (result.url.startsWith("file:")) appendFileSync(file, result.url + "\\n");
  return result;
}`;

// The probing script: optionally registers the hook, imports the target, prints one JSON line.
const PROBE = `
import { register, createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
const [target, file] = process.argv.slice(-2);
if (file !== "-") register("data:text/javascript," + encodeURIComponent(${JSON.stringify(HOOK)}), import.meta.url, { data: { file } });
const before = process.memoryUsage();
const cpu = process.cpuUsage();
const started = performance.now();
await import(target);
const importMs = performance.now() - started;
const { user, system } = process.cpuUsage(cpu);
const after = process.memoryUsage();
const cjs = Object.keys(createRequire(pathToFileURL(process.cwd() + "/").href).cache);
console.log(JSON.stringify({ importMs, cpuMs: (user + system) / 1000, rssBytes: after.rss - before.rss, heapBytes: after.heapUsed - before.heapUsed, cjs }));
`;

/** Imports `specifier` in a fresh node process and reports its cost (and, if asked, every file it loaded). */
export async function probeImport(options: ProbeOptions): Promise<ImportProbe> {
  const dir = mkdtempSync(join(tmpdir(), "import-probe-"));
  const file = join(dir, "resolved.txt");
  const target = /^[./]/.test(options.specifier) ? pathToFileURL(options.specifier).href : options.specifier;
  try {
    const args = [
      ...(options.nodeArgs ?? []),
      "--input-type=module",
      "--eval",
      PROBE,
      target,
      options.recordModules ? file : "-",
    ];
    const output = await run(args, `import("${target}")`, options.cwd);
    const line = output.trim().split("\n").at(-1)!;
    const { cjs, ...figures } = JSON.parse(line) as Omit<ImportProbe, "modules"> & { cjs: string[] };
    if (!options.recordModules) return figures;
    const esm = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((url) => decodeURIComponent(new URL(url).pathname));
    return { ...figures, modules: [...new Set([...esm, ...cjs])].sort() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The package a loaded file belongs to ("@temporalio/worker", "webpack"), or "(ours)" outside node_modules. */
export function packageOf(path: string): string {
  const match = /(?:^|.*\/)node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  return match ? match[1]! : "(ours)";
}

function run(args: string[], label: string, cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`${label} in a fresh node exited with ${code}: ${stderr.trim()}`)),
    );
  });
}
