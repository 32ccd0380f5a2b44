/**
 * A run's answer in flight put back together from its chunks, which may come twice (the backlog
 * read after subscribing, and live), out of order across the two, or with a gap (chunks lost while
 * Redis was down). The newest attempt wins; its text is the union of the chunks that touch, and so
 * is its reasoning, apart from the text.
 */
import type { PartialAnswer } from "../core/run-events.js";

/** Chunk `b` comes after answer attempt `a` (a later trip, or a later attempt of the trip). */
const newer = (a: PartialAnswer, b: PartialAnswer) => b.trip > a.trip || (b.trip === a.trip && b.attempt > a.attempt);

/** A piece of text from character `from` on. */
interface Span {
  from: number;
  text: string;
}

/** The newest answer attempt's text so far. */
export class AnswerAccumulator {
  #answer: PartialAnswer | undefined;

  /** The answer so far, if a chunk came. */
  get latest(): PartialAnswer | undefined {
    return this.#answer;
  }

  /** Adds a chunk (`text` from character `from` of its attempt's answer, `reasoning` from `reasoningFrom`); true when the answer grew. */
  add(chunk: PartialAnswer): boolean {
    const answer = this.#answer;
    if (!answer || newer(answer, chunk)) {
      this.#answer = { ...chunk };
      return true;
    }
    if (newer(chunk, answer)) return false; // an earlier attempt's chunk, late
    const text = union({ from: answer.from, text: answer.text }, { from: chunk.from, text: chunk.text });
    const reasoning =
      chunk.reasoning === undefined
        ? undefined
        : union(
            { from: answer.reasoningFrom ?? 0, text: answer.reasoning ?? "" },
            { from: chunk.reasoningFrom ?? 0, text: chunk.reasoning },
          );
    if (!text && !reasoning) return false;
    this.#answer = {
      ...answer,
      ...(text ? { from: text.from, text: text.text } : {}),
      ...(reasoning ? { reasoningFrom: reasoning.from, reasoning: reasoning.text } : {}),
    };
    return true;
  }
}

/** `known` with `chunk` added, or undefined when the chunk adds nothing. */
function union(known: Span, chunk: Span): Span | undefined {
  const end = known.from + known.text.length;
  const chunkEnd = chunk.from + chunk.text.length;
  // A gap: the text after it is newer (a watcher behind it waits for `model.answered`).
  if (chunk.from > end) return { ...chunk };
  if (chunkEnd < known.from || (chunk.from >= known.from && chunkEnd <= end)) return undefined; // nothing new
  const from = Math.min(known.from, chunk.from);
  const before = chunk.from < known.from ? chunk.text : known.text.slice(0, chunk.from - known.from);
  const middle = chunk.from < known.from ? "" : chunk.text;
  const beforeEnd = from + before.length + middle.length;
  const after = end > beforeEnd ? known.text.slice(beforeEnd - known.from) : "";
  return { from, text: before + middle + after };
}
