/**
 * `npm run bench:streaming` (add `-- --quick` for 3 runs per subject instead of 10): the streaming
 * part of `npm run bench` alone, ours beside both peers' streaming modes and WorkflowAgent; `-- --candidates` adds
 * our heartbeat-throttle candidates; `-- --only durable-agent` measures ours alone (e.g. on
 * another checkout). Prints the table and the goals of issue 23, writes them to
 * bench-results/streaming.json, and puts them in bench-results/latest.json if a full run wrote one.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { benchStreaming, HEARTBEAT_CANDIDATES, STREAMING_SUBJECTS } from "./streaming.js";
import { streamingGoals, streamingRows } from "./streaming-report.js";

const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
const subjects = [...STREAMING_SUBJECTS, ...(process.argv.includes("--candidates") ? HEARTBEAT_CANDIDATES : [])].filter(
  (s) => !only || s.library === only,
);
const figures = await benchStreaming({ quick: process.argv.includes("--quick"), subjects });
const goals = streamingGoals(figures);
console.table(streamingRows(figures));
console.table(goals.map((g) => ({ goal: g.goal, figure: g.figure, status: g.status })));
mkdirSync("bench-results", { recursive: true });
writeFileSync("bench-results/streaming.json", JSON.stringify({ streaming: figures, goals }, null, 2) + "\n");
// A full run's results, if there is one, take these figures and goals in place of its own.
const latest = "bench-results/latest.json";
if (existsSync(latest)) {
  const results = JSON.parse(readFileSync(latest, "utf8")) as { streaming?: unknown; goals?: { goal: string }[] };
  const ours = new Set(goals.map((g) => g.goal));
  writeFileSync(
    latest,
    JSON.stringify(
      { ...results, streaming: figures, goals: [...(results.goals ?? []).filter((g) => !ours.has(g.goal)), ...goals] },
      null,
      2,
    ) + "\n",
  );
}
console.log(
  "bench: streaming figures and goals in bench-results/streaming.json" + (existsSync(latest) ? " and latest.json" : ""),
);
