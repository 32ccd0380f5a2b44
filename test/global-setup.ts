/** Starts one real Temporal dev server, bundles the workflow and finds a Chromium, once for the whole suite. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startDevServer } from "../src/testing/dev-server.js";
import { bundleAgentWorkflows } from "../src/worker.js";
import { resolveChromium, type ChromiumBinary } from "./support/browser.js";
import { useExistingServer } from "./support/existing-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    temporalAddress: string;
    workflowBundlePath: string;
    chromium: ChromiumBinary;
  }
}

export default async function setup(project: TestProject) {
  // host:port of a running server to use instead of a dev server (`npm run test:stack`).
  if (process.env.DURABLE_AGENT_TEST_TEMPORAL)
    return useExistingServer(project, process.env.DURABLE_AGENT_TEST_TEMPORAL);
  const [server, bundle, chromium] = await Promise.all([startDevServer(), bundleAgentWorkflows(), resolveChromium()]);
  const bundlePath = join(mkdtempSync(join(tmpdir(), "durable-agent-")), "workflow-bundle.js");
  writeFileSync(bundlePath, bundle.code);
  project.provide("temporalAddress", server.address);
  project.provide("workflowBundlePath", bundlePath);
  project.provide("chromium", chromium);
  console.log(
    `Temporal dev server at ${server.address} (CLI from ${server.cliSource}: ${server.executable}); Chromium from ${chromium.source}: ${chromium.executablePath}`,
  );
  return () => server.stop();
}
