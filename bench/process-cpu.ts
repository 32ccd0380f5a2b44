/**
 * CPU time of other processes on this machine (Linux /proc): the benchmark's dev server, found by
 * the port it listens on, so a trip's CPU can be charged to the server as well as to the worker.
 */
import { readFileSync } from "node:fs";
import { portHolder } from "../src/testing/port-check.js";

/** Clock ticks a second of /proc/<pid>/stat's times (USER_HZ, 100 on every Linux Node runs on). */
const TICKS_PER_SECOND = 100;

/** The pid listening on `address`'s port (`host:port`), or undefined where /proc does not tell. */
export function pidListeningOn(address: string): number | undefined {
  const holder = portHolder(Number(address.split(":").at(-1)));
  const pid = holder && /^pid (\d+)/.exec(holder)?.[1];
  return pid ? Number(pid) : undefined;
}

/** The process's user + system CPU time so far, in ms (NaN once it is gone). */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command (which may hold spaces), from field 3: utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}
