/**
 * The page's built assets: `dist/studio/page` (Vite's output, `npm run build:studio`), found from
 * this module whether it runs from dist/ or from src/. A missing build is answered with
 * `StudioAssetsMissingError`'s message naming the script, the API still serving.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serveStatic } from "@hono/node-server/serve-static";
import type { Hono, MiddlewareHandler } from "hono";
import type { ErrorResponse } from "../api-types.js";
import { StudioAssetsMissingError } from "../errors.js";

/** The page's folder: beside the compiled studio in dist/, or the package's dist/ when running from source. */
export function defaultAssetsDir(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith(".ts")
    ? fileURLToPath(new URL("../../../dist/studio/page/", import.meta.url))
    : fileURLToPath(new URL("../page/", import.meta.url));
}

/**
 * Serves the page: `/` is index.html (the page routes itself by the URL's hash), and any other
 * path a file of the build, or 404 (the browser's `/favicon.ico` among them). The folder is looked
 * at per request, so a build made while the studio runs is served.
 */
export function servePage(app: Hono, folder: string): void {
  let file: MiddlewareHandler | undefined;
  app.on(["GET", "HEAD"], "*", async (c) => {
    if (!existsSync(join(folder, "index.html"))) return c.text(new StudioAssetsMissingError(folder).message, 503);
    file ??= serveStatic({ root: folder });
    const served = await file(c, async () => undefined);
    return served ?? c.json<ErrorResponse>({ error: `No such page: ${c.req.path}` }, 404);
  });
}
