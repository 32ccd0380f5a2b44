/** The cancel rows of `npm run bench:watchers` as a table, and their goals (issue 40). Pure. */
import { judgeExact, type Goal } from "../stats/index.js";
import type { CancelRow } from "./cancel.js";

/** RSS the client may grow by over its cancelled streams. */
export const RSS_GROWTH_GOAL_MB = 10;

/** One table row per run state. */
export function cancelTableRows(rows: readonly CancelRow[]) {
  return rows.map((row) => ({
    run: row.run,
    W: row.watchers,
    "streams cancelled": row.streams,
    "streams/s": Math.round((row.streams / row.ms) * 1000),
    "history calls made": row.historyCalls,
    "history calls in flight 1 s after the last cancel": row.historyInFlightAfter1s,
    "calls in flight then": row.callsInFlightAfter1s,
    "client RSS, MB (start → end)": `${row.rssStartMB} → ${row.rssEndMB}`,
    "client JS heap, MB (start → end)": `${row.heapStartMB} → ${row.heapEndMB}`,
  }));
}

/** Per run state: no history call in flight 1 s after the last cancel; the client's RSS within RSS_GROWTH_GOAL_MB of its start. */
export function cancelGoals(rows: readonly CancelRow[]): Goal[] {
  return rows.flatMap((row) => [
    {
      goal: `cancel loop, ${row.run}: history calls in flight 1 s after the last cancel = 0`,
      figure: String(row.historyInFlightAfter1s),
      status: judgeExact(row.historyInFlightAfter1s === 0),
    },
    {
      goal: `cancel loop, ${row.run}: client RSS after ${row.streams} cancelled streams within ${RSS_GROWTH_GOAL_MB} MB of its start`,
      figure: `${(row.rssEndMB - row.rssStartMB).toFixed(1)} MB`,
      status: judgeExact(row.rssEndMB - row.rssStartMB <= RSS_GROWTH_GOAL_MB),
    },
  ]);
}
