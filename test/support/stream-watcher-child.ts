/**
 * A watcher of one run in a process of its own (`tsx --conditions=durable-agent-source`), for
 * tests of many processes reading one run. Arguments: the server's address and the workflow id.
 * It prints JSON lines: `{ ready }` once it has read the run's first durable event, `{ firstDeltaAt }`
 * (its clock, in ms) at its first text delta, and at the end `{ text, durable, calls, rejections }`.
 */
import { ai } from "../../src/index.js";
import { connectCountedClient } from "./counted-client.js";

const [address, workflowId] = process.argv.slice(2) as [string, string];
const { client, counts, close } = await connectCountedClient(address);
const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
let text = "";
const durable: number[] = [];
for await (const event of (await ai.getRun(workflowId, { client })).stream()) {
  if (event.type === "text.delta") {
    if (!text) print({ firstDeltaAt: Date.now() });
    text += event.text;
  } else {
    if (durable.length === 0) print({ ready: true });
    durable.push(event.offset);
  }
}
print({ text, durable, calls: Object.fromEntries(counts.calls), rejections: counts.rejections() });
await close();
