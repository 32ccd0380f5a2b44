/**
 * The stack's Redis, as the compose file's `redis` service: the `redis-server` that
 * `startRedisServer` (durable-agent/testing) finds or fetches, in memory only, on 127.0.0.1, of the
 * compose image's major version (a warning says when it is not).
 */
import { execFileSync } from "node:child_process";
import { startRedisServer, type RedisServer, type RedisServerBinary } from "../../src/testing/redis-server.js";

/** The version a `redis-server` binary reports (`redis-server --version`: "Redis server v=7.0.15 ..."). */
export function redisServerVersion(binary: Pick<RedisServerBinary, "path" | "env">): string {
  const output = execFileSync(binary.path, ["--version"], { encoding: "utf8", env: { ...process.env, ...binary.env } });
  const version = /\bv=(\d+\.\d+\.\d+)/.exec(output)?.[1];
  if (!version) throw new Error(`${binary.path} --version printed no version: ${output.trim().slice(0, 200)}`);
  return version;
}

/** Starts the stack's Redis on `port`; logs its version, and a warning when its major is not the compose image's. */
export async function startStackRedis(
  port: number,
  composeMajor: string,
  log: (line: string) => void,
): Promise<RedisServer> {
  const redis = await startRedisServer({ port, log });
  const version = redisServerVersion(redis.binary);
  log(`redis-server ${version} (${redis.binary.source}: ${redis.binary.path}) on ${redis.url}`);
  if (version.split(".")[0] !== composeMajor)
    log(`warning: redis-server ${version} is not of docker-compose.yml's redis:${composeMajor}`);
  return redis;
}
