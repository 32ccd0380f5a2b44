/**
 * The package's build (dist/) for the tests that install it as a user gets it (the tarball test,
 * the chat example): built once, then packed and installed without npm building it again. npm runs
 * the `prepare` script (`npm run build`) whenever it packs this folder (`npm pack`, or an install
 * of `file:../..` with install-links) unless told `--ignore-scripts`; so these tests build when
 * dist/ is missing or older than src/, and pack and install with `--ignore-scripts`.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root. */
export const REPO = fileURLToPath(new URL("../../", import.meta.url));

/** Runs a command to its end; throws with its output when it fails. Returns how long it took (ms). */
export function runCommand(command: string, args: string[], cwd: string): number {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(" ")} in ${cwd} failed (${result.status}):\n${result.stdout}\n${result.stderr}`,
    );
  return Date.now() - started;
}

/** The newest modification time of the files under `dir`. */
function newestFileUnder(dir: string): number {
  return Math.max(
    0,
    ...readdirSync(dir, { recursive: true, encoding: "utf8" })
      .map((name) => statSync(join(dir, name)))
      .filter((stats) => stats.isFile())
      .map((stats) => stats.mtimeMs),
  );
}

/** Builds the package (`npm run build`) when dist/ is missing or older than src/. Returns the build's ms, 0 when dist/ was up to date. */
export function ensurePackageBuilt(): number {
  const distIndex = join(REPO, "dist/index.js");
  if (existsSync(distIndex) && newestFileUnder(join(REPO, "src")) <= statSync(distIndex).mtimeMs) return 0;
  return runCommand("npm", ["run", "build"], REPO);
}

/**
 * `npm ci` in `dir` without building this package again: `--ignore-scripts` (npm packs the
 * `file:` copy of this repository as dist/ holds it), then `npm rebuild` for the dependencies' own
 * install scripts (it runs no `prepare`). Returns how long both took (ms).
 */
export function npmCiWithoutPrepare(dir: string): number {
  return (
    runCommand("npm", ["ci", "--no-audit", "--no-fund", "--ignore-scripts"], dir) +
    runCommand("npm", ["rebuild", "--no-audit", "--no-fund"], dir)
  );
}
