/**
 * The studio page's build: Vite bundles src/studio/page/app (Preact, JSX compiled by Vite's own
 * Oxc transform with Preact's automatic runtime, so no Babel preset) into dist/studio/page/, which
 * the studio server serves and the package ships. `npm run build:studio`.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "./",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL("../../../dist/studio/page", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    reportCompressedSize: false,
    modulePreload: { polyfill: false },
  },
  logLevel: "warn",
});
