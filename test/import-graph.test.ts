/**
 * The layering of src/, enforced: dependency-cruiser runs the `forbidden` rules of
 * .dependency-cruiser.cjs over src/ the way TypeScript resolves it (`.js` specifiers to `.ts`
 * files, the package's conditions). Every rule also runs over test/fixtures/import-graph/, a tree
 * that breaks each one, so a rule that could never fail would fail here.
 */
import { createRequire } from "node:module";
import { cruise, type ICruiseResult, type IForbiddenRuleType } from "dependency-cruiser";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";

const { forbidden } = createRequire(import.meta.url)("../.dependency-cruiser.cjs") as {
  forbidden: IForbiddenRuleType[];
};
const ROOT_RULE = "the-root-entry-loads-no-worker-code";
const tsConfig = ts.readConfigFile("tsconfig.json", ts.sys.readFile).config;

/**
 * Two passes. Cycles and the workflow/core rules see every import, type-only and dynamic
 * included. The root rule asks what importing the root loads, so it follows only imports that
 * load code at import time: no type-only ones, no dynamic `import()`.
 */
async function check(baseDir: string): Promise<{ all: ICruiseResult; loaded: ICruiseResult }> {
  const options = {
    doNotFollow: { path: "node_modules" },
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

let src: { all: ICruiseResult; loaded: ICruiseResult };
let broken: { all: ICruiseResult; loaded: ICruiseResult };

beforeAll(async () => {
  [src, broken] = await Promise.all([
    check(process.cwd()),
    check(new URL("fixtures/import-graph/", import.meta.url).pathname),
  ]);
});

describe("the src/ import graph", () => {
  it("keeps every layering rule: no cycles, workflow code and the core import only the workflow API and the core, the root loads no worker code, the studio page imports only Preact and its API types", () => {
    expect([...violations(src.all), ...violations(src.loaded)]).toEqual([]);
  });

  it("sees type-only and dynamic imports (so the cycle and layer rules could fail on them)", () => {
    const edges = (from: string) => src.all.modules.find((m) => m.source === from)?.dependencies ?? [];
    const typeOnly = edges("src/agent/options.ts").find((d) => d.resolved === "src/limits.ts");
    expect(typeOnly?.dependencyTypes).toContain("type-only");
    const dynamic = edges("src/agent/define-agent.ts").find((d) => d.resolved === "src/eval/run-eval.ts");
    expect(dynamic?.dynamic).toBe(true);
    expect(src.all.summary.totalCruised).toBeGreaterThan(150);
  });

  it("fails on an import that breaks each rule", () => {
    const names = new Set(
      [...broken.all.summary.violations, ...broken.loaded.summary.violations].map((v) => v.rule.name),
    );
    expect([...names].sort()).toEqual(
      forbidden
        .map((r) => r.name)
        .filter((n) => n !== "no-circular")
        .sort(),
    );
    // The root's dynamic import of workflow code is not a load at import time; its static re-export of an activity is.
    expect(violations(broken.loaded)).toEqual([`${ROOT_RULE}: src/index.ts → src/activities/load-plan.ts`]);
  });
});
