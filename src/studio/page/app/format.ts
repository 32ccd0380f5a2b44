/** How the page writes numbers, durations, times and JSON values. */

/** 12,345 (or "–"). */
export const tokens = (n: number | undefined): string => (n === undefined ? "–" : n.toLocaleString("en-US"));

/** $0.0123 (or "–"): four decimals below a dollar, two above. */
export const cost = (n: number | undefined): string =>
  n === undefined ? "–" : `$${n < 1 ? n.toFixed(4) : n.toFixed(2)}`;

/** 840 ms, 2.4 s. */
export const ms = (n: number | undefined): string =>
  n === undefined ? "–" : n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(1)} s`;

/** An ISO time as the browser's local date and time. */
export const time = (iso: string | undefined): string => (iso ? new Date(iso).toLocaleString() : "–");

/** 43% */
export const percent = (x: number | null | undefined): string => (x == null ? "–" : `${Math.round(x * 100)}%`);

/** A JSON value as indented text (a string as it is). */
export const json = (value: unknown): string =>
  typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? String(value));
