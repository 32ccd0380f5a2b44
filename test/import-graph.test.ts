/**
 * The layering of src/, enforced: dependency-cruiser runs the `forbidden` rules of
 * .dependency-cruiser.cjs over src/ the way TypeScript resolves it (`.js` specifiers to `.ts`
 * files, the package's conditions). The ranks are one rule per rank (no import climbs to a higher
 * rank), and this file adds `no-folder-loop`: folders of one rank must not import each other in a
 * loop either. Every rule also runs over test/fixtures/import-graph/, a tree that breaks each one,
 * so a rule that could never fail would fail here.
 */
import { createRequire } from "node:module";
import { cruise, type ICruiseResult, type IForbiddenRuleType } from "dependency-cruiser";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";

const { forbidden } = createRequire(import.meta.url)("../.dependency-cruiser.cjs") as {
  forbidden: IForbiddenRuleType[];
};
const ROOT_RULE = "the-root-entry-loads-no-worker-code";
/** A rank's rule: its modules (`from`) import no module of a higher rank (`to`); `pathNot` holds the temporary allowance. */
interface RankRule {
  name: string;
  from: { path: string; pathNot?: string[] };
  to: { path: string; pathNot?: string[] };
}
const RANK_RULES = forbidden.filter((r) => /^rank-\d+-/.test(r.name ?? "")) as RankRule[];
const tsConfig = ts.readConfigFile("tsconfig.json", ts.sys.readFile).config;

/**
 * Two passes. Cycles, ranks and the workflow/core rules see every import, type-only and dynamic
 * included. The root rule asks what importing the root loads, so it follows only imports that
 * load code at import time: no type-only ones, no dynamic `import()`.
 */
async function check(baseDir: string): Promise<{ all: ICruiseResult; loaded: ICruiseResult }> {
  const options = {
    doNotFollow: { path: "node_modules" },
    // node_modules/... as the rules name it, also where node_modules is a link (a git worktree's).
    preserveSymlinks: true,
    tsConfig: { fileName: "tsconfig.json" },
    validate: true,
    baseDir,
    exclude: { path: "\\.test\\.ts$" },
  };
  const all = await cruise(
    ["src"],
    { ...options, tsPreCompilationDeps: true, ruleSet: { forbidden: forbidden.filter((r) => r.name !== ROOT_RULE) } },
    {},
    { tsConfig },
  );
  const loaded = await cruise(
    ["src"],
    {
      ...options,
      tsPreCompilationDeps: false,
      exclude: { path: "\\.test\\.ts$", dynamic: true },
      ruleSet: { forbidden: forbidden.filter((r) => r.name === ROOT_RULE) },
    },
    {},
    { tsConfig },
  );
  return { all: all.output as ICruiseResult, loaded: loaded.output as ICruiseResult };
}

/** Each violation as its rule and the path that breaks it. */
function violations(result: ICruiseResult): string[] {
  return result.summary.violations.map((v) => {
    const steps = v.cycle?.length ? v.cycle : v.via?.length ? v.via : [{ name: v.to }];
    return `${v.rule.name}: ${[v.from, ...steps.map((step) => step.name)].join(" → ")}`;
  });
}

/** `src/<folder>/`, or the file itself for a file directly in src/; the ground's files (errors.ts, limits.ts, duration.ts) count with core/. */
function folderOf(path: string): string {
  const folder = /^src\/(streaming\/(?:worker|client)\/|[^/]+\/)/.exec(path)?.[1];
  if (folder) return folder;
  const file = path.slice("src/".length);
  return ["errors.ts", "limits.ts", "duration.ts"].includes(file) ? "core/" : file;
}

/** An import the rank rules' temporary allowance (the streaming wing's) lets climb: no loop is counted through it. */
function allowed(from: string, to: string): boolean {
  const matches = (patterns: string[] = [], path: string) => patterns.some((p) => new RegExp(p).test(path));
  return RANK_RULES.some((r) => matches(r.from.pathNot, from) || matches(r.to.pathNot, to));
}

/**
 * `no-folder-loop`: folders (strongly connected groups in the graph of imports between folders)
 * that reach each other. Ranks leave none between ranks; this catches one within a rank.
 */
function folderLoops(result: ICruiseResult): string[] {
  const edges = new Map<string, Set<string>>();
  for (const m of result.modules.filter((m) => m.source.startsWith("src/"))) {
    for (const d of m.dependencies.filter((d) => d.resolved.startsWith("src/") && !allowed(m.source, d.resolved))) {
      const [a, b] = [folderOf(m.source), folderOf(d.resolved)];
      if (a !== b) edges.set(a, (edges.get(a) ?? new Set()).add(b));
    }
  }
  const reach = (from: string) => {
    const seen = new Set<string>();
    const walk = (f: string) => edges.get(f)?.forEach((g) => !seen.has(g) && (seen.add(g), walk(g)));
    walk(from);
    return seen;
  };
  const reached = new Map([...edges.keys()].map((f) => [f, reach(f)]));
  const loops = new Set<string>();
  for (const [f, seen] of reached) {
    if (!seen.has(f)) continue;
    const loop = [...seen].filter((g) => reached.get(g)?.has(f)).sort();
    loops.add(`no-folder-loop: ${loop.join(" ↔ ")}`);
  }
  return [...loops];
}

let src: { all: ICruiseResult; loaded: ICruiseResult };
let broken: { all: ICruiseResult; loaded: ICruiseResult };

beforeAll(async () => {
  [src, broken] = await Promise.all([
    check(process.cwd()),
    check(new URL("fixtures/import-graph/", import.meta.url).pathname),
  ]);
});

describe("the src/ import graph", () => {
  it("keeps every layering rule: no import climbs a rank, no folder loop, no cycles, workflow code and the core import only the workflow API and the core, the root loads no worker code, the studio page imports only Preact and its API types", () => {
    expect([...violations(src.all), ...violations(src.loaded), ...folderLoops(src.all)]).toEqual([]);
  });

  it("sees type-only and dynamic imports (so the cycle and layer rules could fail on them)", () => {
    const edges = (from: string) => src.all.modules.find((m) => m.source === from)?.dependencies ?? [];
    const typeOnly = edges("src/agent/options.ts").find((d) => d.resolved === "src/limits.ts");
    expect(typeOnly?.dependencyTypes).toContain("type-only");
    const dynamic = edges("src/facade/define-agent.ts").find((d) => d.resolved === "src/eval/run-eval.ts");
    expect(dynamic?.dynamic).toBe(true);
    expect(src.all.summary.totalCruised).toBeGreaterThan(150);
  });

  it("gives every rank but the top one its rule", () => {
    expect(RANK_RULES.map((r) => r.name)).toEqual([
      "rank-0-ground-imports-no-higher-rank",
      "rank-1-standalone-imports-no-higher-rank",
      "rank-2-models-imports-no-higher-rank",
      "rank-3-workflows-imports-no-higher-rank",
      "rank-4-definitions-imports-no-higher-rank",
      "rank-5-reads-and-deltas-imports-no-higher-rank",
      "rank-6-activities-imports-no-higher-rank",
      "rank-7-client-imports-no-higher-rank",
      "rank-8-over-the-client-imports-no-higher-rank",
      "rank-9-facade-imports-no-higher-rank",
      "rank-10-apps-imports-no-higher-rank",
    ]);
  });

  it("fails on an import that breaks each rule, and on a folder loop", () => {
    const names = new Set(
      [...broken.all.summary.violations, ...broken.loaded.summary.violations].map((v) => v.rule.name),
    );
    expect([...names].sort()).toEqual(forbidden.map((r) => r.name).sort());
    // Each rank's rule fails on its own step of the ladder: climbs-a-rank.ts of each rank imports the next rank's.
    const ladder = violations(broken.all).filter((v) => v.includes("climbs-a-rank.ts →"));
    expect(ladder).toEqual(
      expect.arrayContaining([
        "rank-0-ground-imports-no-higher-rank: src/core/climbs-a-rank.ts → src/options/climbs-a-rank.ts",
        "rank-3-workflows-imports-no-higher-rank: src/workflows/climbs-a-rank.ts → src/agent/climbs-a-rank.ts",
        "rank-10-apps-imports-no-higher-rank: src/cli/climbs-a-rank.ts → src/worker-main.ts",
      ]),
    );
    expect(violations(broken.all)).toEqual(
      expect.arrayContaining([
        "no-circular: src/eval/cycle-a.ts → src/eval/cycle-b.ts → src/eval/cycle-a.ts",
        "every-module-has-a-rank: src/unranked/no-rank.ts → src/core/uses-the-worker.ts",
      ]),
    );
    expect(folderLoops(broken.all)).toEqual(["no-folder-loop: eval/ ↔ fork/"]);
    // The root's dynamic import of workflow code is not a load at import time; its static re-export of an activity is.
    expect(violations(broken.loaded)).toEqual([`${ROOT_RULE}: src/index.ts → src/activities/load-plan.ts`]);
  });
});
