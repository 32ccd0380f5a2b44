/** The peer's tool, as a Temporal activity: the same work as ours. */
import { recordStep as record } from "../scenario.js";

export async function recordStep(input: { step: number }): Promise<{ recorded: number }> {
  return record(input);
}
