/**
 * Several watchers of one run in a process of their own (`tsx --conditions=durable-agent-source`),
 * reading it through Redis (`DURABLE_AGENT_REDIS_URL`), for tests of the run's lease across
 * processes. Arguments: the server's address, the workflow id and the number of watchers. It
 * prints JSON lines: `{ ready }` once every watcher has read the run's first durable event,
 * `{ firstDelta }` at the process's first text delta, and at the end
 * `{ watchers: [{ text, durable }], calls, rejections }` (its Temporal calls by method).
 */
import { ai } from "../../src/index.js";
import { connectCountedClient } from "./counted-client.js";

const [address, workflowId, count] = process.argv.slice(2) as [string, string, string];
const { client, counts, close } = await connectCountedClient(address);
const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
let attached = 0;
let delta = false;
const watchers = await Promise.all(
  Array.from({ length: Number(count) }, async () => {
    let text = "";
    const durable: number[] = [];
    for await (const event of (await ai.getRun(workflowId, { client })).stream()) {
      if (event.type === "text.delta") {
        if (!delta) print({ firstDelta: true });
        delta = true;
        text += event.text;
      } else {
        if (durable.length === 0 && ++attached === Number(count)) print({ ready: true });
        durable.push(event.offset);
      }
    }
    return { text, durable };
  }),
);
print({ watchers, calls: Object.fromEntries(counts.calls), rejections: counts.rejections() });
await close();
