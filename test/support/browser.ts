/**
 * The browser of the UI tests: `CHROMIUM_PATH`, else a Chromium on the PATH, else the one the
 * `@sparticuz/chromium` dev dependency ships inside its npm package (unpacked once to /tmp), so
 * `npm install && npm test` needs no system browser. Driven by playwright-core.
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { inject } from "vitest";

/** A Chromium to launch: where it is, the flags it needs, and where it came from. */
export interface ChromiumBinary {
  executablePath: string;
  args: string[];
  source: string;
}

const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"];
/** @sparticuz/chromium's Lambda defaults left out: those that switch off the web's security model (CORS, site isolation), which the codec UI test checks, and the one-process mode. */
const LEFT_OUT = new Set([
  "--disable-web-security",
  "--allow-running-insecure-content",
  "--disable-site-isolation-trials",
  // Lambda's one-process mode: the browser exits when a context closes, so a test could open only one.
  "--single-process",
]);

function onPath(names: string[]): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    for (const name of names) {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return join(dir, name);
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/** Finds (or unpacks) a Chromium; called once by the suite's global setup. */
export async function resolveChromium(): Promise<ChromiumBinary> {
  if (process.env.CHROMIUM_PATH)
    return { executablePath: process.env.CHROMIUM_PATH, args: FLAGS, source: "CHROMIUM_PATH" };
  const system = onPath(["chromium", "chromium-browser", "google-chrome"]);
  if (system) return { executablePath: system, args: FLAGS, source: "PATH" };
  const { default: packaged } = await import("@sparticuz/chromium");
  return {
    executablePath: await packaged.executablePath(),
    args: [...new Set([...packaged.args.filter((arg) => !LEFT_OUT.has(arg)), ...FLAGS])],
    source: "@sparticuz/chromium",
  };
}

/** Launches the suite's Chromium (headless). */
export function launchChromium(): Promise<Browser> {
  const binary = inject("chromium");
  return chromium.launch({ executablePath: binary.executablePath, args: binary.args, headless: true });
}
