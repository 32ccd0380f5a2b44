/**
 * `npm run bench:streaming` (add `-- --quick` for 3 runs per subject instead of 10): the streaming
 * part of `npm run bench` alone, ours beside both peers' streaming modes; `-- --candidates` adds
 * our heartbeat-throttle candidates; `-- --only durable-agent` measures ours alone (e.g. on
 * another checkout). Prints the table and writes bench-results/streaming.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { benchStreaming, HEARTBEAT_CANDIDATES, STREAMING_SUBJECTS } from "./streaming.js";
import { streamingRows } from "./streaming-report.js";

const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
const subjects = [...STREAMING_SUBJECTS, ...(process.argv.includes("--candidates") ? HEARTBEAT_CANDIDATES : [])].filter((s) => !only || s.library === only);
const figures = await benchStreaming({ quick: process.argv.includes("--quick"), subjects });
console.table(streamingRows(figures));
mkdirSync("bench-results", { recursive: true });
writeFileSync("bench-results/streaming.json", JSON.stringify(figures, null, 2) + "\n");
console.log("bench: streaming figures in bench-results/streaming.json");
