import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { expect, inject, it } from "vitest";
import { isPortFree } from "../src/testing/port-check.js";
import { freePort } from "./support/ops-helpers.js";

it("npm start's demo runs the specification's coach durably: the offer is re-prompted and the plan is changed", async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: inject("temporalAddress") };
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", "--conditions=durable-agent-source", "examples/fitness-coach.ts"],
    { env },
  );
  expect(stdout).toContain(`Temporal: using the server at ${inject("temporalAddress")}`);
  expect(stdout).toContain("Model: scripted demo model");
  expect(stdout).toMatch(/trip 1: re-prompt \(act-when-asked\): .*update_plan/);
  expect(stdout).toContain("trip 2: update_plan -> ok");
  expect(stdout).toContain("answered after 3 trip(s)");
  expect(stdout).toContain("Plan now: lunges, push-ups, planks");
}, 60_000);

it("on a terminal, npm start keeps the dev server and its Web UI up after the demo, with the run's URL, until Ctrl-C", async () => {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: `127.0.0.1:${port}`, SHELL: "/bin/sh" };
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  // `script` gives the demo a pseudo-terminal; a Ctrl-C typed into it reaches the demo as SIGINT.
  // `script` runs the command with $SHELL; `exec` makes that shell give way to the demo, since a
  // shell (dash) that stays as its parent dies of the same SIGINT (exit 130).
  const command = [
    "exec",
    process.execPath,
    "--import",
    "tsx",
    "--conditions=durable-agent-source",
    "examples/fitness-coach.ts",
  ].join(" ");
  const demo = spawn("script", ["-qfec", command, "/dev/null"], { env, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  const exited = new Promise<number | null>((resolve) => demo.on("close", resolve));
  const url = await new Promise<string>((resolve, reject) => {
    demo.stdout.on("data", (chunk: Buffer) => {
      output += chunk;
      const match = /See the run in the Temporal Web UI: (\S+)/.exec(output);
      if (match && output.includes("stay up until Ctrl-C")) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`the demo exited before keeping its server up:\n${output}`)));
  });
  expect(output).toContain(
    `Temporal: nothing at 127.0.0.1:${port}; starting a local dev server (UI on http://localhost:${port + 1000})`,
  );
  expect(url).toMatch(
    new RegExp(`^http://localhost:${port + 1000}/namespaces/default/workflows/coach-[^/]+/[0-9a-f-]+/history$`),
  );
  expect((await fetch(url)).status).toBe(200); // the UI still serves
  demo.stdin.write("\x03");
  expect(await exited).toBe(0);
  expect(await isPortFree(port)).toBe(true); // the dev server stopped with it
}, 90_000);
