import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect, inject, it } from "vitest";

it("npm start's demo runs the specification's coach durably: the offer is re-prompted and the plan is changed", async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: inject("temporalAddress") };
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--conditions=durable-agent-source", "examples/fitness-coach.ts"], { env });
  expect(stdout).toContain(`Temporal: using the server at ${inject("temporalAddress")}`);
  expect(stdout).toContain("Model: scripted demo model");
  expect(stdout).toMatch(/trip 1: re-prompt \(act-when-asked\): .*update_plan/);
  expect(stdout).toContain("trip 2: update_plan -> ok");
  expect(stdout).toContain("answered after 3 trip(s)");
  expect(stdout).toContain("Plan now: lunges, push-ups, planks");
}, 60_000);
