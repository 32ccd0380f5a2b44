/**
 * Issue 41, C1 and C8: the page docs/chat-ui.md opens with, as a user copies it. Every file of its
 * section "The whole page" (a block whose first line names the file) is written into a fresh
 * Next.js app, a CommonJS one as `create-next-app` writes it (no `"type": "module"`, its
 * tsconfig), with the example app's installed packages (examples/chat: next, react, the AI SDK
 * and a packed durable-agent, as test/chat-browser.test.ts installs them), and built with
 * `next build` (Turbopack): the imports as the guide writes them resolve, and the pages and
 * routes type-check.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXAMPLE, ensureChatExample } from "./support/chat-example.js";
import { codeBlocks } from "./support/markdown.js";

const GUIDE = "docs/chat-ui.md";
/** The fresh app: inside the example's folder, so its node_modules resolve (and outside its sources: a dot folder). */
const APP = join(EXAMPLE, ".guide-app");

/** The files of the guide's section "The whole page": each block whose first line is `// <path>`, by path. */
function guideFiles(): Map<string, string> {
  const text = readFileSync(GUIDE, "utf8").split("\n");
  const from = text.indexOf("## The whole page");
  const to = text.findIndex((line, i) => i > from && line.startsWith("## "));
  const files = new Map<string, string>();
  for (const block of codeBlocks(GUIDE).filter((b) => b.line > from && b.line < to)) {
    const path = /^\/\/ ([\w./[\]-]+\.tsx?)\b/.exec(block.code)?.[1];
    if (path) files.set(path, block.code);
  }
  return files;
}

/** A tsconfig as `create-next-app` writes it. */
const TSCONFIG = {
  compilerOptions: {
    target: "ES2017",
    lib: ["dom", "dom.iterable", "esnext"],
    allowJs: true,
    skipLibCheck: true,
    strict: true,
    noEmit: true,
    esModuleInterop: true,
    module: "esnext",
    moduleResolution: "bundler",
    resolveJsonModule: true,
    isolatedModules: true,
    jsx: "react-jsx",
    incremental: true,
    plugins: [{ name: "next" }],
    paths: { "@/*": ["./*"] },
  },
  include: ["next-env.d.ts", "**/*.ts", "**/*.tsx", ".next/types/**/*.ts"],
  exclude: ["node_modules"],
};

describe("docs/chat-ui.md: the whole page", () => {
  it("copied file by file into a fresh CommonJS Next.js app, builds with next build (Turbopack), the guide's imports as written", () => {
    const build = ensureChatExample();
    console.log(`examples/chat installed and built: ${JSON.stringify(build)}`);
    const files = guideFiles();
    expect([...files.keys()]).toEqual([
      "agents.ts",
      "lib/chat.ts",
      "app/api/chat/route.ts",
      "app/api/chat/[id]/stream/route.ts",
      "app/layout.tsx",
      "app/page.tsx",
      "app/chat/[id]/page.tsx",
      "app/chat/[id]/chat.tsx",
    ]);
    rmSync(APP, { recursive: true, force: true });
    for (const [path, code] of files) {
      mkdirSync(dirname(join(APP, path)), { recursive: true });
      writeFileSync(join(APP, path), code);
    }
    writeFileSync(join(APP, "package.json"), JSON.stringify({ name: "chat-guide-app", private: true }, null, 2));
    writeFileSync(join(APP, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
    // The one line a fresh app would not have: its packages are the example's, a folder up, so Turbopack's root is there.
    writeFileSync(
      join(APP, "next.config.ts"),
      `const root = ${JSON.stringify(EXAMPLE)};\nexport default { turbopack: { root }, outputFileTracingRoot: root };\n`,
    );
    const started = Date.now();
    const result = spawnSync(process.execPath, [join(EXAMPLE, "node_modules/next/dist/bin/next"), "build"], {
      cwd: APP,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
      encoding: "utf8",
    });
    const output = `${result.stdout}\n${result.stderr}`;
    console.log(`next build of the guide's app: ${Date.now() - started} ms\n${output.slice(-3000)}`);
    expect(output).not.toMatch(/Can't resolve|Module not found|Type error/);
    expect(result.status).toBe(0);
    expect(output).toMatch(/Next\.js [\d.]+ \(Turbopack\)/);
    expect(output).toMatch(/Compiled successfully/);
    // The routes and pages the guide names, built.
    for (const built of [
      "server/app/api/chat/route.js",
      "server/app/api/chat/[id]/stream/route.js",
      "server/app/chat/[id]/page.js",
      "server/app/page.js",
    ])
      expect(existsSync(join(APP, ".next", built)), built).toBe(true);
  }, 900_000);
});
