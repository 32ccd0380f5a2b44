/**
 * No import circles in src/: dependency-cruiser walks the import graph the way TypeScript
 * resolves it (`.js` specifiers to `.ts` files, the package's conditions), type-only and dynamic
 * imports included, and every edge that closes a cycle is a failure naming the whole cycle.
 */
import { cruise, type ICruiseResult } from "dependency-cruiser";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";

let result: ICruiseResult;

beforeAll(async () => {
  const tsConfig = ts.readConfigFile("tsconfig.json", ts.sys.readFile).config;
  const cruised = await cruise(
    ["src"],
    {
      doNotFollow: { path: "node_modules" },
      tsPreCompilationDeps: true,
      tsConfig: { fileName: "tsconfig.json" },
      validate: true,
      ruleSet: { forbidden: [{ name: "no-circular", severity: "error", from: {}, to: { circular: true } }] },
    },
    {},
    { tsConfig },
  );
  result = cruised.output as ICruiseResult;
});

describe("the src/ import graph", () => {
  it("has no cycles, type-only imports included", () => {
    const cycles = result.summary.violations.map((v) => [v.from, ...(v.cycle ?? []).map((step) => step.name)].join(" → "));
    expect(cycles).toEqual([]);
  });

  it("sees type-only and dynamic imports (so the check above could fail on them)", () => {
    const edges = (from: string) => result.modules.find((m) => m.source === from)?.dependencies ?? [];
    const typeOnly = edges("src/agent/options.ts").find((d) => d.resolved === "src/limits.ts");
    expect(typeOnly?.dependencyTypes).toContain("type-only");
    const dynamic = edges("src/agent/define-agent.ts").find((d) => d.resolved === "src/eval/run-eval.ts");
    expect(dynamic?.dynamic).toBe(true);
    expect(result.summary.totalCruised).toBeGreaterThan(150);
  });
});
