/**
 * The studio: a local web app over Temporal that shows runs as conversations and runs the
 * team's loop (approve, cancel, fork, datasets, evals, report comparison). `ai.studio()` loads
 * this entry on its first call (src/lazy-studio.ts), so the root import loads no server code.
 */
export { startStudio } from "./server/start-studio.js";
export type { StudioOptions, StudioServer } from "./options.js";
export { StudioAssetsMissingError, StudioOptionsError } from "./errors.js";
export type * from "./api-types.js";
