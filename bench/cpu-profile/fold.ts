/**
 * Folds V8 CPU profiles (`.cpuprofile`, from `node --cpu-prof` or the inspector) into where the
 * time went, by category (`CATEGORIES`): each sample goes to the first category, in their order,
 * that any frame of its stack belongs to, so a heartbeat's payload conversion counts as a heartbeat
 * and the model call's HTTP as the OpenAI client. Frames in a webpack bundle (the workflow bundle
 * a worker runs in its VM) are placed by the module the bundle's `/***\/ "path"` markers put them in.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** A V8 CPU profile as `--cpu-prof` writes it. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    children?: number[];
  }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A frame as the rules see it: its function, and its file (a bundle's frames: the bundled module's path). */
export interface Frame {
  functionName: string;
  file: string;
  lineNumber?: number;
}

/** A category of CPU time: what it covers, and whether it is this project's code to change. */
export interface Category {
  name: string;
  ours: boolean;
  matches: (frame: Frame) => boolean;
}

const under =
  (...parts: string[]) =>
  (frame: Frame) =>
    parts.some((part) => frame.file.includes(part));
const TEMPORAL_HEARTBEAT = /heartbeat/i;

/** Lines [first, last] (0-based) of a class method in a file, found by its indentation; cached. */
const methodLines = new Map<string, [number, number] | null>();
function inMethod(frame: Frame & { lineNumber?: number }, fileEnd: string, method: string): boolean {
  if (!frame.file.endsWith(fileEnd) || frame.lineNumber === undefined) return false;
  const key = `${frame.file}#${method}`;
  if (!methodLines.has(key)) {
    let range: [number, number] | null = null;
    try {
      const lines = readFileSync(frame.file.startsWith("file:") ? fileURLToPath(frame.file) : frame.file, "utf8").split(
        "\n",
      );
      const first = lines.findIndex((l) => l.startsWith(`    ${method}(`));
      const last = lines.findIndex((l, i) => i > first && /^ {4}(async )?[\w$]+\(.*\) \{$/.test(l));
      if (first >= 0) range = [first, last < 0 ? lines.length : last - 1];
    } catch {
      range = null;
    }
    methodLines.set(key, range);
  }
  const range = methodLines.get(key);
  return !!range && frame.lineNumber >= range[0] && frame.lineNumber <= range[1];
}

/** The categories, first match wins (over the whole stack). Our code is the worktree's src/. */
export const CATEGORIES: Category[] = [
  {
    name: "heartbeats (keep-alive timer, heartbeat details, their conversion)",
    ours: true,
    matches: (f) =>
      (f.file.includes("/src/activities/keep-alive.") && ["beat", "heartbeatWith"].includes(f.functionName)) ||
      (/@temporalio\/(activity|worker|common)\//.test(f.file) && TEMPORAL_HEARTBEAT.test(f.functionName)) ||
      inMethod(f, "@temporalio/worker/lib/worker.js", "activityHeartbeat$"),
  },
  {
    name: "conversation cache (src/activities/conversation-cache, digests)",
    ours: true,
    matches: under("/src/activities/conversation-cache.", "/src/core/conversation-digest."),
  },
  { name: "validation (zod)", ours: true, matches: under("/node_modules/zod/") },
  {
    name: "logging (Temporal's worker logger: metadata built for every trace and debug call, level on or off)",
    ours: false,
    matches: (f) => /@temporalio\/(worker|common|activity|workflow)\/lib\/(logger|.*-log|log)[^/]*\.js/.test(f.file),
  },
  {
    name: "payload conversion and codec (data converter, failures, src/codec)",
    ours: false,
    matches: under(
      "@temporalio/common/lib/converter/",
      "@temporalio/common/lib/encoding",
      "@temporalio/common/lib/failure",
      "@temporalio/worker/lib/workflow-codec-runner",
      "/src/codec/",
    ),
  },
  {
    name: "OpenAI client (openai package)",
    ours: false,
    matches: under("/node_modules/openai/", "/node_modules/ai/", "/node_modules/@ai-sdk/"),
  },
  { name: "HTTP (fetch: undici)", ours: false, matches: (f) => f.file.includes("undici") },
  {
    name: "ours: the model call and its request (src/models, src/activities/model-call)",
    ours: true,
    matches: under("/src/models/", "/src/activities/model-call."),
  },
  {
    name: "ours: tool call (src/activities/tool-execute, src/core/tool-*)",
    ours: true,
    matches: under("/src/activities/tool-", "/src/core/tool-"),
  },
  {
    name: "ours: workflow code (src/workflows, src/core in the bundle)",
    ours: true,
    matches: under("/src/workflows/", "/src/core/"),
  },
  {
    name: "ours: other (src/)",
    ours: true,
    matches: (f) => /\/src\/(?!studio\/page)/.test(f.file) && !f.file.includes("node_modules"),
  },
  {
    name: "Temporal workflow VM (@temporalio/workflow, the worker's VM glue)",
    ours: false,
    matches: under("@temporalio/workflow/", "@temporalio/worker/lib/workflow/", "@temporalio/common/"),
  },
  {
    name: "Temporal worker (core bridge, activation and completion protobufs, rxjs)",
    ours: false,
    matches: under("@temporalio/", "/node_modules/rxjs/", "/node_modules/protobufjs/", "/node_modules/long/"),
  },
  {
    name: "the benchmark itself (scripted model server, client driver: bench/, src/testing)",
    ours: false,
    matches: under("/bench/", "/src/testing/"),
  },
  { name: "other packages", ours: false, matches: (f) => f.file.includes("/node_modules/") },
  { name: "garbage collection", ours: false, matches: (f) => f.functionName === "(garbage collector)" },
];
/** Samples no category takes: Node's internals, V8 builtins with no caller of ours, `(program)`. */
export const UNATTRIBUTED = "node internals, V8 (program), no category";

/** Bundles' code by URL pattern, for bundles no longer on disk when their profile is folded. */
const bundleSources: { test: RegExp; code: string }[] = [];
/** Folds frames of URLs matching `test` by the modules of `code` (a bundle a worker loaded from a file since removed). */
export function addBundleSource(test: RegExp, code: string): void {
  bundleSources.push({ test, code });
}

/** Modules of a webpack bundle by line: `/***\/ "path"` markers at the start of a line, in order. */
const bundles = new Map<string, { line: number; path: string }[] | null>();
function bundleModules(url: string): { line: number; path: string }[] | null {
  if (bundles.has(url)) return bundles.get(url)!;
  let modules: { line: number; path: string }[] | null = null;
  try {
    const path = url.startsWith("file:") ? fileURLToPath(url) : url;
    const code =
      bundleSources.find((b) => b.test.test(url))?.code ??
      (path && existsSync(path) ? readFileSync(path, "utf8") : undefined);
    if (code !== undefined) {
      const found: { line: number; path: string }[] = [];
      code.split("\n").forEach((text, line) => {
        const m = /^\/\*\*\*\/ "([^"]+)"/.exec(text);
        if (m) found.push({ line, path: m[1]! });
      });
      modules = found.length ? found : null;
    }
  } catch {
    modules = null;
  }
  bundles.set(url, modules);
  return modules;
}

/** The frame's file: its URL, or in a bundle the bundled module's path. */
function frameOf(callFrame: CpuProfile["nodes"][number]["callFrame"]): Frame {
  const modules = callFrame.url ? bundleModules(callFrame.url) : null;
  if (!modules) return { functionName: callFrame.functionName, file: callFrame.url, lineNumber: callFrame.lineNumber };
  let lo = 0;
  let hi = modules.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (modules[mid]!.line <= callFrame.lineNumber) lo = mid;
    else hi = mid - 1;
  }
  const module = modules[lo]!.line <= callFrame.lineNumber ? modules[lo]!.path : "(bundle runtime)";
  return { functionName: callFrame.functionName, file: `bundle:${module}` };
}

/**
 * Where a profile's samples in the window (µs, the profile's clock) went: ms by category, by leaf
 * function, and by category and leaf function. A sample counts the gap to the next sample, capped
 * at 1.5× the profile's median gap: on a loaded machine a thread that is descheduled between two
 * samples would otherwise be charged for time it did not run.
 */
export function foldProfile(
  profile: CpuProfile,
  window: { startUs: number; endUs: number } = { startUs: -Infinity, endUs: Infinity },
  categories: Category[] = CATEGORIES,
): Fold {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const categoryOf = new Map<number, string>(); // by leaf node id
  const classify = (leaf: number): string => {
    const cached = categoryOf.get(leaf);
    if (cached) return cached;
    const frames: Frame[] = [];
    for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id))
      frames.push(frameOf(byId.get(id)!.callFrame));
    const name = categories.find((c) => frames.some((f) => c.matches(f)))?.name ?? UNATTRIBUTED;
    categoryOf.set(leaf, name);
    return name;
  };
  const gaps = [...profile.timeDeltas].filter((d) => d > 0).sort((a, b) => a - b);
  const cap = 1.5 * (gaps[Math.floor(gaps.length / 2)] ?? 1000);
  const fold: Fold = { byCategory: new Map(), bySelf: new Map(), byCategorySelf: new Map(), sampledMs: 0 };
  const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    const ms = Math.min(cap, profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000;
    if (t < window.startUs || t > window.endUs) continue;
    const node = byId.get(profile.samples[i]!)!;
    if (node.callFrame.functionName === "(idle)") continue;
    fold.sampledMs += ms;
    const category = classify(node.id);
    add(fold.byCategory, category, ms);
    const frame = frameOf(node.callFrame);
    const self = `${frame.functionName || "(anonymous)"} ${frame.file.replace(/^.*node_modules\//, "").replace(/^.*\/(src|bench)\//, "$1/")}`;
    add(fold.bySelf, self, ms);
    add(fold.byCategorySelf, `${category}\t${self}`, ms);
  }
  return fold;
}

/** A folded profile (or several, summed): ms by category, by leaf function, by both ("category\tfunction"). */
export interface Fold {
  byCategory: Map<string, number>;
  bySelf: Map<string, number>;
  byCategorySelf: Map<string, number>;
  sampledMs: number;
}

/** Profiles folded apart, summed. */
export function sumFolds(folds: Fold[]): Fold {
  const sum: Fold = { byCategory: new Map(), bySelf: new Map(), byCategorySelf: new Map(), sampledMs: 0 };
  for (const fold of folds) {
    sum.sampledMs += fold.sampledMs;
    for (const key of ["byCategory", "bySelf", "byCategorySelf"] as const)
      for (const [k, v] of fold[key]) sum[key].set(k, (sum[key].get(k) ?? 0) + v);
  }
  return sum;
}

/** Whether a category is ours (this project's code to change). */
export const isOurs = (name: string) => CATEGORIES.find((c) => c.name === name)?.ours ?? false;
