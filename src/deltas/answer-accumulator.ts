/**
 * A run's answer in flight put back together from its chunks, which may come twice (the backlog
 * read after subscribing, and live), out of order across the two, or with a gap (chunks lost while
 * Redis was down). The newest attempt wins; its text is the union of the chunks that touch.
 */
import type { PartialAnswer } from "../core/run-events.js";

/** Chunk `b` comes after answer attempt `a` (a later trip, or a later attempt of the trip). */
const newer = (a: PartialAnswer, b: PartialAnswer) => b.trip > a.trip || (b.trip === a.trip && b.attempt > a.attempt);

/** The newest answer attempt's text so far. */
export class AnswerAccumulator {
  #answer: PartialAnswer | undefined;

  /** The answer so far, if a chunk came. */
  get latest(): PartialAnswer | undefined {
    return this.#answer;
  }

  /** Adds a chunk (`text` from character `from` of its attempt's answer); true when the answer grew. */
  add(chunk: PartialAnswer): boolean {
    const answer = this.#answer;
    if (!answer || newer(answer, chunk)) {
      this.#answer = { ...chunk };
      return true;
    }
    if (newer(chunk, answer)) return false; // an earlier attempt's chunk, late
    const end = answer.from + answer.text.length;
    const chunkEnd = chunk.from + chunk.text.length;
    if (chunk.from > end) {
      // A gap: the text after it is newer (a watcher behind it waits for `model.answered`).
      this.#answer = { ...chunk };
      return true;
    }
    if (chunkEnd < answer.from || (chunk.from >= answer.from && chunkEnd <= end)) return false; // nothing new
    const from = Math.min(answer.from, chunk.from);
    const before = chunk.from < answer.from ? chunk.text : answer.text.slice(0, chunk.from - answer.from);
    const middle = chunk.from < answer.from ? "" : chunk.text;
    const beforeEnd = from + before.length + middle.length;
    const after = end > beforeEnd ? answer.text.slice(beforeEnd - answer.from) : "";
    this.#answer = { ...answer, from, text: before + middle + after };
    return true;
  }
}
