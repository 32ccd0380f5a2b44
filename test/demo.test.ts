/**
 * `npm start` (examples/fitness-coach.ts), run once here: on a terminal with nothing at
 * TEMPORAL_ADDRESS, so it starts a dev server of its own, runs the demo to its answer, and keeps
 * the server and its Web UI up until Ctrl-C. CI's fresh path runs the README's `npm start` too
 * (no terminal: it exits after the demo), so one run here shows what the demo prints.
 */
import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { isPortFree } from "../src/testing/port-check.js";
import { freePort } from "./support/ops-helpers.js";

/** A free port whose UI port (port + 1000, as the demo picks it) is free too. */
async function freePortPair(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 1000 <= 65_535 && (await isPortFree(port + 1000))) return port;
  }
}

it("npm start on a terminal runs the specification's coach durably (the offer is re-prompted, the plan is changed), then keeps the dev server and its Web UI up, with the run's URL, until Ctrl-C", async () => {
  const port = await freePortPair();
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
  expect(output).toContain("Model: scripted demo model");
  expect(output).toMatch(/trip 1: re-prompt \(act-when-asked\): .*update_plan/);
  expect(output).toContain("trip 2: update_plan -> ok");
  expect(output).toContain("answered after 3 trip(s)");
  expect(output).toContain("Plan now: lunges, push-ups, planks");
  expect(url).toMatch(
    new RegExp(`^http://localhost:${port + 1000}/namespaces/default/workflows/coach-[^/]+/[0-9a-f-]+/history$`),
  );
  expect((await fetch(url)).status).toBe(200); // the UI still serves
  demo.stdin.write("\x03");
  expect(await exited).toBe(0);
  expect(await isPortFree(port)).toBe(true); // the dev server stopped with it
}, 90_000);
