#!/usr/bin/env node
// Launches the TypeScript CLI (src/cli/index.ts) through tsx, resolving the package's "source"
// export condition, and passes its exit code (or signal) through.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../src/cli/index.ts", import.meta.url));
const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), "--conditions=durable-agent-source", cli, ...process.argv.slice(2)], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
