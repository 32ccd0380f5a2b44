/**
 * A PostgreSQL cluster of the stack's own: `initdb` into a data directory, `pg_ctl` to start,
 * restart and stop it, listening on 127.0.0.1 only. Its superuser is the Temporal database user,
 * as the compose file's postgres image makes POSTGRES_USER. PostgreSQL refuses to run as root, so
 * as root it runs as the `postgres` user the Debian package creates.
 */
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { appendFileSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";

export interface PostgresOptions {
  /** Directory of initdb, pg_ctl and postgres. */
  bin: string;
  /** The data directory (created and initialised when missing). */
  dataDir: string;
  port: number;
  user: string;
  password: string;
}

export class PostgresCluster {
  private constructor(
    private readonly options: PostgresOptions,
    private readonly runAs: string | undefined,
  ) {}

  /** Initialises the data directory when it is new (an existing cluster keeps its data). */
  static create(options: PostgresOptions): PostgresCluster {
    const runAs = process.getuid?.() === 0 ? "postgres" : undefined;
    const cluster = new PostgresCluster(options, runAs);
    if (!existsSync(join(options.dataDir, "PG_VERSION"))) cluster.init();
    return cluster;
  }

  get port(): number {
    return this.options.port;
  }

  get dataDir(): string {
    return this.options.dataDir;
  }

  /** The server's log file. */
  get logFile(): string {
    return join(this.options.dataDir, "server.log");
  }

  private run(tool: string, args: string[]): string {
    const command = join(this.options.bin, tool);
    const [file, argv] = this.runAs ? ["runuser", ["-u", this.runAs, "--", command, ...args]] : [command, args];
    return execFileSync(file, argv, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], cwd: "/" });
  }

  private init(): void {
    const { dataDir, user, password } = this.options;
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const secrets = mkdtempSync("/tmp/durable-agent-pg-");
    const pwfile = join(secrets, "pw");
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (this.runAs) {
      const { uid, gid } = userIds(this.runAs);
      chownSync(dataDir, uid, gid);
      chownSync(secrets, uid, gid);
      chownSync(pwfile, uid, gid);
    }
    try {
      this.run("initdb", [
        "-D",
        dataDir,
        "-U",
        user,
        `--pwfile=${pwfile}`,
        "--auth-local=trust",
        "--auth-host=scram-sha-256",
        "-E",
        "UTF8",
        "--no-instructions",
      ]);
    } finally {
      rmSync(secrets, { recursive: true, force: true });
    }
    // Temporal opens up to 20 + 10 connections per service (SQL_MAX_CONNS, SQL_VIS_MAX_CONNS): four
    // services in separate processes need more than PostgreSQL's default of 100.
    appendFileSync(
      join(dataDir, "postgresql.conf"),
      [
        ``,
        `# durable-agent stack`,
        `listen_addresses = '127.0.0.1'`,
        `unix_socket_directories = '${dataDir}'`,
        `max_connections = 300`,
        ``,
      ].join("\n"),
    );
  }

  /** pg_ctl's common arguments; the port is given each time, so a kept cluster may move to another. */
  private get serverArgs(): string[] {
    return ["-D", this.options.dataDir, "-l", this.logFile, "-o", `-p ${this.options.port}`, "-w", "-t", "60"];
  }

  /** Runs a tool without blocking the event loop (the caller's servers and clients keep serving). */
  private async runInBackground(tool: string, args: string[]): Promise<void> {
    const command = join(this.options.bin, tool);
    const [file, argv] = this.runAs ? ["runuser", ["-u", this.runAs, "--", command, ...args]] : [command, args];
    await promisify(execFile)(file, argv, { cwd: "/" });
  }

  /** `start()`, without blocking the event loop (the soak stops and starts PostgreSQL mid-run). */
  startInBackground(): Promise<void> {
    return this.runInBackground("pg_ctl", [...this.serverArgs, "start"]);
  }

  /** `stop()` (fast shutdown, which ends open connections), without blocking the event loop. */
  stopInBackground(): Promise<void> {
    return this.runInBackground("pg_ctl", ["-D", this.options.dataDir, "-w", "-t", "60", "-m", "fast", "stop"]);
  }

  start(): void {
    this.run("pg_ctl", [...this.serverArgs, "start"]);
  }

  isRunning(): boolean {
    try {
      this.run("pg_ctl", ["-D", this.options.dataDir, "status"]);
      return true;
    } catch {
      return false;
    }
  }

  stop(): void {
    if (this.isRunning()) this.run("pg_ctl", ["-D", this.options.dataDir, "-w", "-t", "60", "-m", "fast", "stop"]);
  }
}

function userIds(name: string): { uid: number; gid: number } {
  const uid = Number(execFileSync("id", ["-u", name], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", name], { encoding: "utf8" }).trim());
  if (!Number.isInteger(uid) || uid === userInfo().uid) throw new Error(`No user ${name} to run PostgreSQL as`);
  return { uid, gid };
}
