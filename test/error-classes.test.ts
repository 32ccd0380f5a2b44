/**
 * The error classes as a user meets them: every class the root exports has a literal `name` and
 * an `isInstance()` that agrees with the class hierarchy; both survive a minifying bundler and
 * hold across two copies of the bundle in two realms, where `instanceof` does not; and the list
 * in docs/models-and-errors.md is the list of exports, both ways.
 */
import { readFileSync } from "node:fs";
import vm from "node:vm";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import * as root from "../src/index.js";
import { DurableAgentError } from "../src/index.js";
import { errorSamples } from "./support/error-samples.js";

type ErrorClass = (abstract new (...args: never[]) => DurableAgentError) & { isInstance(error: unknown): boolean };

/** The error classes the root exports, by export name. */
const isErrorClass = (value: unknown): value is ErrorClass =>
  typeof value === "function" && (value === DurableAgentError || value.prototype instanceof DurableAgentError);
const exported = Object.fromEntries(
  Object.entries(root as Record<string, unknown>).filter((entry): entry is [string, ErrorClass] =>
    isErrorClass(entry[1]),
  ),
);
const samples = errorSamples();

describe("every exported error class", () => {
  it("has a sample in test/support/error-samples.ts (so each check below covers it)", () => {
    expect(Object.keys(samples).sort()).toEqual(Object.keys(exported).sort());
    expect(Object.keys(exported).length).toBeGreaterThanOrEqual(37);
  });

  it.each(Object.keys(samples))(
    "%s: its name is its export name, and isInstance() agrees with instanceof for every class",
    (name) => {
      const error = samples[name]!;
      expect(error.name).toBe(name);
      expect(error).toBeInstanceOf(exported[name]);
      for (const [other, Class] of Object.entries(exported))
        expect([other, Class.isInstance(error)]).toEqual([other, error instanceof Class]);
      expect(exported[name]!.isInstance({ name, message: "a look-alike without the marker" })).toBe(false);
    },
  );

  it("the approval errors are ApprovalErrors to isInstance() too", () => {
    for (const name of ["ApprovalNotWaitingError", "ApprovalRefusedError", "UnknownApprovalError"])
      expect(root.ApprovalError.isInstance(samples[name])).toBe(true);
    expect(root.UnknownApprovalError.isInstance(samples.ApprovalRefusedError)).toBe(false);
  });
});

describe("bundled and minified", () => {
  it("keeps every name and isInstance() across two copies of the bundle in two realms, where instanceof fails; toFailure/fromFailure round-trip inside it", async () => {
    const src = (path: string) => JSON.stringify(new URL(`../${path}`, import.meta.url).pathname);
    const entry = [
      `export * from ${src("src/errors.ts")};`,
      `export * from ${src("src/eval/errors.ts")};`,
      `export * from ${src("src/datasets/errors.ts")};`,
      `export { toFailure, fromFailure } from ${src("src/core/typed-failures.ts")};`,
      `export { errorSamples } from ${src("test/support/error-samples.ts")};`,
    ].join("\n");
    const output = await build({
      stdin: { contents: entry, resolveDir: process.cwd(), loader: "ts", sourcefile: "errors-entry.ts" },
      bundle: true,
      minify: true,
      format: "iife",
      globalName: "bundle",
      platform: "neutral",
      mainFields: ["main", "module"],
      write: false,
      logLevel: "error",
    });
    const code = output.outputFiles[0]!.text;
    // The minifier renamed the classes: a name read from the class (new.target.name) would be lost.
    expect(code).not.toMatch(/class (ModelApiError|TemporalConnectionError|DurableAgentError)\b/);
    const realm = () => {
      const context = vm.createContext({});
      vm.runInContext(code, context);
      return context.bundle as Record<string, ErrorClass> & {
        errorSamples(): Record<string, DurableAgentError>;
        toFailure(e: unknown): unknown;
        fromFailure(f: unknown): DurableAgentError | undefined;
      };
    };
    const [a, b] = [realm(), realm()];
    const fromB = b.errorSamples();
    expect(Object.keys(fromB).sort()).toEqual(Object.keys(samples).sort());
    for (const [name, error] of Object.entries(fromB)) {
      expect(error.name).toBe(name);
      expect(a[name]!.isInstance(error)).toBe(true);
      expect(a.DurableAgentError!.isInstance(error)).toBe(true);
      expect(error instanceof a[name]!).toBe(false);
    }
    expect(a.TemporalConnectionError!.isInstance(fromB.ModelApiError)).toBe(false);
    const decoded = a.fromFailure(a.toFailure(a.errorSamples().ModelApiError));
    expect(decoded).toBeInstanceOf(a.ModelApiError);
    expect(decoded).toMatchObject({
      name: "ModelApiError",
      status: 401,
      modelId: "gpt-test",
      contentType: "text/html",
      bodyStart: "<html>",
    });
  });
});

describe("docs/models-and-errors.md", () => {
  it("lists every exported error class in its Errors section, and no error the package does not export", () => {
    const doc = readFileSync(new URL("../docs/models-and-errors.md", import.meta.url), "utf8");
    const section = doc.slice(doc.indexOf("\n## Errors\n"), doc.indexOf("\nTested by:", doc.indexOf("\n## Errors\n")));
    const listed = new Set([...section.matchAll(/`([A-Z]\w*Error)`/g)].map((m) => m[1]!));
    expect([...listed].sort()).toEqual(Object.keys(exported).sort());
  });
});
