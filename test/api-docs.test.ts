/**
 * The API reference: `npm run docs:api` (TypeDoc over the package's two entry points, warnings as
 * errors, so an exported name without a doc comment fails) builds, and its index page renders in
 * the suite's Chromium and leads to `ai.agent`. Built here into a temporary folder, with the same
 * config (typedoc.json) as `npm run docs:api`.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./support/browser.js";

const out = mkdtempSync(join(tmpdir(), "api-docs-"));
let build: { code: number; output: string };

beforeAll(async () => {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ["node_modules/typedoc/bin/typedoc", "--out", out],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    build = { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    build = { code: failed.code ?? 1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}, 180_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("the API reference (npm run docs:api)", () => {
  it("builds with no warning: every exported name has a doc comment", () => {
    expect(build.output).not.toMatch(/\[warning\]|\[error\]/);
    expect(build.code).toBe(0);
  });

  it("renders its index page in Chromium, which lists the ai namespace and ai.agent, and leads to ai.agent's page", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(join(out, "index.html")).href);
      await expect.poll(() => page.title()).toBe("durable-agent");
      const content = page.locator(".col-content");
      await expect.poll(() => content.locator("h1").innerText()).toContain("durable-agent");
      const ai = content.locator('a[href="modules/ai.html"]', { hasText: /^ai$/ });
      await expect.poll(() => ai.isVisible()).toBe(true);
      expect(await content.locator('a[href="classes/Agent.html"]').count()).toBeGreaterThan(0);
      expect(await content.locator("a", { hasText: "durable-agent/testing" }).count()).toBeGreaterThan(0);
      const navigation = page.locator('#tsd-nav-container a[href$="variables/ai.agent.html"]');
      await expect.poll(() => navigation.count()).toBe(1); // the index's navigation lists ai.agent (built by the page's script)
      expect(await navigation.textContent()).toBe("agent");
      await ai.click();
      const agent = page.locator('.col-content a[href="../variables/ai.agent.html"]', { hasText: /^agent$/ });
      await expect.poll(() => agent.isVisible()).toBe(true);
      await agent.click();
      await expect.poll(() => page.locator(".col-content h1").innerText()).toContain("agent");
      expect(page.url()).toMatch(/variables\/ai\.agent\.html$/);
      expect(await page.locator(".tsd-comment").first().innerText()).toContain("Defines an agent");
    } finally {
      await browser.close();
    }
  });
});
