/** The suite on a server that is already running (DURABLE_AGENT_TEST_TEMPORAL=host:port), e.g. the stack of `npm run test:stack`. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { bundleAgentWorkflows } from "../../src/worker.js";
import { resolveChromium } from "./browser.js";

export async function useExistingServer(project: TestProject, address: string): Promise<void> {
  const bundlePath = join(mkdtempSync(join(tmpdir(), "durable-agent-")), "workflow-bundle.js");
  writeFileSync(bundlePath, (await bundleAgentWorkflows()).code);
  project.provide("temporalAddress", address);
  project.provide("workflowBundlePath", bundlePath);
  project.provide("chromium", await resolveChromium());
  console.log(`Temporal server at ${address} (DURABLE_AGENT_TEST_TEMPORAL)`);
}
