/**
 * Compressed JSON for carrying a run's state across continue-as-new in one payload (gzip, with
 * fflate: pure JavaScript, so it runs in the workflow sandbox). Workflow-safe.
 */
import { gunzipSync, gzipSync, strFromU8, strToU8 } from "fflate";

/** JSON, gzipped. */
export function pack(value: unknown): Uint8Array {
  return gzipSync(strToU8(JSON.stringify(value)), { level: 6, mtime: 0 });
}

/** The value `pack` packed. */
export function unpack<T>(bytes: Uint8Array): T {
  return JSON.parse(strFromU8(gunzipSync(bytes))) as T;
}
