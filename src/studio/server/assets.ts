/**
 * The page's built assets: `dist/studio/page` (Vite's output, `npm run build:studio`), found from
 * this module whether it runs from dist/ or from src/. A missing build is answered with
 * `StudioAssetsMissingError`'s message naming the script, the API still serving.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serveStatic } from "@hono/node-server/serve-static";
import type { Hono } from "hono";
import { StudioAssetsMissingError } from "../errors.js";

/** The page's folder: beside the compiled studio in dist/, or the package's dist/ when running from source. */
export function defaultAssetsDir(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith(".ts")
    ? fileURLToPath(new URL("../../../dist/studio/page/", import.meta.url))
    : fileURLToPath(new URL("../page/", import.meta.url));
}

/** Serves the page (index.html for `/` and any path the page routes itself) and its assets. */
export function servePage(app: Hono, folder: string): void {
  const missing = () => !existsSync(join(folder, "index.html"));
  app.use("*", async (c, next) => {
    if (c.req.path.startsWith("/api/") || !["GET", "HEAD"].includes(c.req.method)) return next();
    if (missing()) return c.text(new StudioAssetsMissingError(folder).message, 503);
    return next();
  });
  app.use("*", serveStatic({ root: folder }));
  app.get("*", serveStatic({ root: folder, path: "index.html" }));
}
