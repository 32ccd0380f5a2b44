/**
 * `npm run test:real-model`'s global setup: installs llama.cpp's server and the model into the
 * cache (test/real-model/install.ts), starts `llama-server` on 127.0.0.1, a Temporal dev server
 * and the workflow bundle, once for the whole real-model suite.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startDevServer } from "../../src/testing/dev-server.js";
import { bundleAgentWorkflows } from "../../src/worker.js";
import { installRealModel } from "./install.js";
import { startLlamaServer } from "./llama-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The real model server's OpenAI-compatible base URL. */
    realModelBaseURL: string;
    /** The model id sent in requests. */
    realModelId: string;
  }
}

export default async function setup(project: TestProject) {
  const started = Date.now();
  const install = await installRealModel();
  console.log(`real model: installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const [llama, server, bundle] = await Promise.all([
    startLlamaServer(install),
    startDevServer(),
    bundleAgentWorkflows(),
  ]);
  const bundlePath = join(mkdtempSync(join(tmpdir(), "durable-agent-")), "workflow-bundle.js");
  writeFileSync(bundlePath, bundle.code);
  project.provide("temporalAddress", server.address);
  project.provide("workflowBundlePath", bundlePath);
  project.provide("realModelBaseURL", llama.baseURL);
  project.provide("realModelId", llama.modelId);
  console.log(
    `real model: llama-server at ${llama.baseURL} (${install.model.description}); Temporal dev server at ${server.address}`,
  );
  return async () => {
    await llama.stop();
    await server.stop();
  };
}
