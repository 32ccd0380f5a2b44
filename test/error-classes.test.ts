/**
 * The error classes as a user meets them: every class the root exports has a literal `name` and
 * an `isInstance()` that agrees with the class hierarchy; both survive a minifying bundler and
 * hold across two copies of the bundle in two realms, where `instanceof` does not; the root entry
 * itself, bundled and minified with mangled identifiers as a web app's build does, throws errors
 * that keep them; every error class in src/ has a literal `name` (and an exported one a static
 * `isInstance`); and the list in docs/models-and-errors.md is the list of exports, both ways.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import vm from "node:vm";
import { build } from "esbuild";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
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
      `export * from ${src("src/studio/errors.ts")};`,
      `export * from ${src("src/schedules/errors.ts")};`,
      `export * from ${src("src/webhooks/errors.ts")};`,
      `export * from ${src("src/memory/errors.ts")};`,
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

describe("the root entry, bundled and minified with mangled identifiers", () => {
  let bundled: typeof root;
  let code: string;
  beforeAll(async () => {
    const output = await build({
      entryPoints: ["src/index.ts"],
      bundle: true,
      minify: true, // whitespace, syntax and identifiers: class names are mangled
      keepNames: false,
      format: "esm",
      platform: "node",
      packages: "external", // npm packages stay imports, resolved from the repository's node_modules
      write: false,
      logLevel: "error",
    });
    code = output.outputFiles[0]!.text;
    mkdirSync(".cache", { recursive: true });
    const dir = mkdtempSync(join(process.cwd(), ".cache", "root-bundle-"));
    try {
      writeFileSync(join(dir, "index.mjs"), code);
      bundled = (await import(pathToFileURL(join(dir, "index.mjs")).href)) as typeof root;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is one minified file whose classes were renamed (a name read from the class would be lost)", () => {
    expect(code).not.toMatch(/class (TemporalConnectionError|AgentOptionsError|DurableAgentError|EvalOptionsError)\b/);
    expect(bundled.TemporalConnectionError).not.toBe(root.TemporalConnectionError);
  });

  it("TemporalConnectionError from ai.connect() keeps its name and isInstance(), and the Temporal client loads on that call", async () => {
    const made = new bundled.TemporalConnectionError("127.0.0.1:1", new Error("connection refused"));
    expect(made.name).toBe("TemporalConnectionError");
    expect(bundled.TemporalConnectionError.isInstance(made)).toBe(true);
    const error = await bundled.ai.connect({ address: "127.0.0.1:1" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: "TemporalConnectionError", address: "127.0.0.1:1" });
    expect(bundled.TemporalConnectionError.isInstance(error)).toBe(true);
    expect(bundled.DurableAgentError.isInstance(error)).toBe(true);
    expect(root.TemporalConnectionError.isInstance(error)).toBe(true); // the unbundled copy knows it too
    expect(bundled.ModelApiError.isInstance(error)).toBe(false);
  });

  it("the errors its API throws keep their names: AgentOptionsError, EvalOptionsError, InvalidInputError", async () => {
    const thrown = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return error;
      }
      throw new Error("nothing was thrown");
    };
    const options = thrown(() =>
      bundled.ai.agent({ name: "coach", model: bundled.ai.openai("gpt-test"), tols: [] } as never),
    );
    expect(options).toMatchObject({ name: "AgentOptionsError", field: "tols", suggestion: "tools" });
    expect(bundled.AgentOptionsError.isInstance(options)).toBe(true);
    expect(bundled.InvalidInputError.isInstance(options)).toBe(false);

    const evalOptions = await bundled.ai.eval.casesFromRuns({}).catch((e: unknown) => e);
    expect(evalOptions).toMatchObject({ name: "EvalOptionsError", field: "workflowIds" });
    expect(bundled.EvalOptionsError.isInstance(evalOptions)).toBe(true);

    const agent = bundled.ai.agent({ name: "coach", model: bundled.ai.openai("gpt-test") });
    const input = await agent.start(42 as never).catch((e: unknown) => e);
    expect(input).toMatchObject({ name: "InvalidInputError" });
    expect(bundled.InvalidInputError.isInstance(input)).toBe(true);
    expect(root.DurableAgentError.isInstance(input)).toBe(true);
  });
});

describe("every error class in src/", () => {
  /** Each class declared in src/ (tests excluded) that extends an Error class, with its `name` initializer and whether it is exported and has a static `isInstance`. */
  function errorClasses(
    dir = "src",
  ): Array<{ file: string; name: string; literal?: string; exported: boolean; isInstance: boolean }> {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return errorClasses(path);
      if (!entry.name.endsWith(".ts") || entry.name.endsWith(".test.ts")) return [];
      const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
      return source.statements.filter(ts.isClassDeclaration).flatMap((node) => {
        const base = node.heritageClauses?.find((c) => c.token === ts.SyntaxKind.ExtendsKeyword)?.types[0];
        if (!node.name || !base || !/Error$/.test(base.expression.getText(source))) return [];
        const member = (name: string, isStatic: boolean) =>
          node.members.find(
            (m) =>
              m.name?.getText(source) === name &&
              ((ts.getCombinedModifierFlags(m as ts.Declaration) & ts.ModifierFlags.Static) !== 0) === isStatic,
          );
        const nameField = member("name", false);
        const initializer = nameField && ts.isPropertyDeclaration(nameField) ? nameField.initializer : undefined;
        return [
          {
            file: path,
            name: node.name.text,
            ...(initializer && ts.isStringLiteral(initializer) ? { literal: initializer.text } : {}),
            exported: (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export) !== 0,
            isInstance: member("isInstance", true) !== undefined,
          },
        ];
      });
    });
  }
  const classes = errorClasses();

  it("finds the classes (src/errors.ts's and the others)", () => {
    expect(classes.length).toBeGreaterThanOrEqual(43);
    expect(classes.map((c) => c.name)).toEqual(
      expect.arrayContaining(["TemporalConnectionError", "StreamCutError", "UsageError"]),
    );
  });

  it("each has a literal name, its own class name (not one read from the class at run time, which minifiers rename)", () => {
    expect(classes.filter((c) => c.literal !== c.name).map((c) => `${c.file}: ${c.name}`)).toEqual([]);
  });

  it("each exported one has a static isInstance", () => {
    expect(classes.filter((c) => c.exported && !c.isInstance).map((c) => `${c.file}: ${c.name}`)).toEqual([]);
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
