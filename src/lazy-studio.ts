/**
 * The studio, loaded when first asked for: `ai.studio()` imports the package's
 * `durable-agent/studio` entry (src/studio/index.ts) on its call, so importing the root loads no
 * server code (Hono, the Node HTTP adapter), and a bundler building an app that imports the root
 * never follows it there (as src/lazy-worker.ts does for the worker).
 */
import type { StudioOptions, StudioServer } from "./studio/options.js";
import type * as StudioModule from "./studio/index.js";

/** A package self-reference in a variable, left alone by bundlers (tests alias it to src/studio/index.ts). */
const STUDIO_ENTRY = "durable-agent/studio";

/**
 * Starts the studio: a local web app showing runs as conversations, where runs are approved,
 * cancelled, forked, saved as datasets and evaluated. Binds 127.0.0.1:4000 by default; another
 * host needs a `token`. Resolves to `{ url, port, close() }` once it listens.
 */
export async function startStudio(options: StudioOptions = {}): Promise<StudioServer> {
  const studio = (await import(
    /* webpackIgnore: true */ /* turbopackIgnore: true */ /* @vite-ignore */ STUDIO_ENTRY
  )) as typeof StudioModule;
  return studio.startStudio(options);
}
