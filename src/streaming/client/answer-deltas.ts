/**
 * Text deltas of a streamed run, from the answer in flight (the `model.call` activity's heartbeat
 * details, read with `describe()`: no history, no worker) set between the run's durable events.
 * Each answer's deltas add up to its text: whatever the heartbeats did not show yet is sent just
 * before the answer's `model.answered`. A retried attempt's text only follows its `trip.retry`.
 * The reasoning the answer in flight carries (what the model produced before its text) goes out as
 * `reasoning.delta`s just before the text of the same partial answer; what a subscriber did not
 * see live comes from the answer's `model.answered` (`reasoningBefore`), when none of its text was shown.
 */
import type { LoadedDataConverter } from "@temporalio/common";
import type { WorkflowExecutionDescription } from "@temporalio/client";
import { ACTIVITY } from "../../core/constants.js";
import { isPartialAnswer, type PartialAnswer, type RunEvent } from "../../core/run-events.js";
import type { RunResult } from "../../core/types.js";
import { loadPayloadDecoding } from "../../run-reads/index.js";

type TextDelta = Extract<RunEvent, { type: "text.delta" }>;
type ReasoningDelta = Extract<RunEvent, { type: "reasoning.delta" }>;
type AnswerDelta = TextDelta | ReasoningDelta;

const pendingModelCall = (description: WorkflowExecutionDescription) =>
  description.raw.pendingActivities?.find((activity) => activity.activityType?.name === ACTIVITY.modelCall);

/** The attempt the run's pending model call is on, if one is pending. */
export const pendingModelCallAttempt = (description: WorkflowExecutionDescription): number | undefined =>
  pendingModelCall(description)?.attempt ?? undefined;

/** The answer in flight, from a description of the run: the pending model call's last heartbeat details. */
export async function partialAnswerOf(
  description: WorkflowExecutionDescription,
  converter: LoadedDataConverter,
): Promise<PartialAnswer | undefined> {
  const pending = pendingModelCall(description);
  const payloads = pending?.heartbeatDetails?.payloads;
  if (!payloads?.length) return undefined;
  // The client's codec first (an encrypting one, say), then its payload converter.
  const { decode } = await loadPayloadDecoding();
  const details = await decode(converter.payloadCodecs, payloads.slice(0, 1))
    .then(([payload]) => converter.payloadConverter.fromPayload<unknown>(payload!))
    .catch(() => undefined);
  if (!isPartialAnswer(details)) return undefined;
  // A retried call shows the failed attempt's last heartbeat until the new attempt's first: not the answer in flight.
  return details.attempt < (pending?.attempt ?? 0) ? undefined : details;
}

/** What one subscriber has shown of the answers: the deltas to send for each partial answer and durable event. */
export class AnswerDeltas {
  /** The attempt whose text was sent, and how much of it (and of its reasoning). */
  #shown: { trip: number; attempt: number; length: number; reasoning: number } | undefined;
  /** The highest trip a durable event named; `answered`: that trip's `model.answered` was seen. */
  #trip = 0;
  #answered = false;
  /** The attempts after the first whose `trip.retry` was seen (or was before this subscriber's offset), by trip. */
  readonly #retried = new Map<number, number>();

  /**
   * Deltas for a partial answer, or "needs-marker" for a retried attempt whose `trip.retry` this
   * subscriber has not seen yet (read the durable events again, then `acceptAttempt` if it is not there).
   */
  fromPartial(partial: PartialAnswer): AnswerDelta[] | "needs-marker" {
    const { trip, attempt } = partial;
    if (trip < this.#trip || (trip === this.#trip && this.#answered)) return []; // answered already: its text came whole
    const latest = this.#retried.get(trip) ?? 1;
    if (attempt < latest) return []; // a failed attempt's last heartbeat, still shown until the new attempt's first
    if (attempt > latest) return "needs-marker";
    if (this.#shown?.trip !== trip || this.#shown.attempt !== attempt) {
      this.#shown = { trip, attempt, length: 0, reasoning: 0 };
    }
    const shown = this.#shown;
    const deltas: AnswerDelta[] = [];
    // Only before the text: reasoning that comes after it would reach subscribers in different orders.
    const reasoning =
      shown.length === 0 ? rest(partial.reasoning ?? "", partial.reasoningFrom ?? 0, shown.reasoning) : "";
    if (reasoning !== "") {
      shown.reasoning += reasoning.length;
      deltas.push({ type: "reasoning.delta", trip, attempt, text: reasoning });
    }
    // Text before `from` was dropped from the heartbeats: a subscriber that far behind waits for model.answered.
    const text = rest(partial.text, partial.from, shown.length);
    if (text !== "") {
      shown.length += text.length;
      deltas.push({ type: "text.delta", trip, attempt, text });
    }
    return deltas;
  }

  /** A retried attempt's text may be sent without its marker: the marker is before where this subscriber started. */
  acceptAttempt(trip: number, attempt: number): void {
    this.#retried.set(trip, Math.max(attempt, this.#retried.get(trip) ?? 0));
  }

  /**
   * Whether trip `trip`'s answer showed none of its latest attempt's text (so its reasoning, read
   * from the record, may still go before it): asked at its `model.answered`.
   */
  wantsReasoning(trip: number): boolean {
    if (trip < this.#trip || (trip === this.#trip && this.#answered)) return false;
    const latest = this.#retried.get(trip) ?? 1;
    const shown = this.#shown?.trip === trip && this.#shown.attempt >= latest ? this.#shown : undefined;
    return !shown || shown.length === 0;
  }

  /** The rest of trip `trip`'s reasoning `whole` (its latest attempt's), past what was shown live, to send before its text. */
  reasoningBefore(trip: number, whole: string): ReasoningDelta[] {
    const latest = this.#retried.get(trip) ?? 1;
    if (this.#shown?.trip !== trip || this.#shown.attempt < latest)
      this.#shown = { trip, attempt: latest, length: 0, reasoning: 0 };
    const shown = this.#shown;
    if (whole.length <= shown.reasoning) return [];
    const text = whole.slice(shown.reasoning);
    shown.reasoning = whole.length;
    return [{ type: "reasoning.delta", trip, attempt: shown.attempt, text }];
  }

  /** The deltas to send before a durable event (the rest of an answer, before its `model.answered`). */
  beforeDurable(event: RunEvent): TextDelta[] {
    if ("trip" in event && typeof event.trip === "number" && event.trip > this.#trip) {
      this.#trip = event.trip;
      this.#answered = false;
    }
    if (event.type === "trip.retry") {
      this.acceptAttempt(event.trip, event.attempt);
      // The earlier attempt's text is dropped (the subscriber was told): the new attempt's starts again.
      if (this.#shown?.trip === event.trip && this.#shown.attempt < event.attempt) this.#shown = undefined;
      return [];
    }
    if (event.type === "reasoning.delta") {
      // ...and its reasoning before it (attempt 0 too): model.answered does not send it again.
      const shown = this.#shown?.trip === event.trip ? this.#shown : undefined;
      const attempt = Math.max(event.attempt, this.#retried.get(event.trip) ?? 1);
      this.#shown = {
        trip: event.trip,
        attempt,
        length: shown?.length ?? 0,
        reasoning: (shown?.reasoning ?? 0) + event.text.length,
      };
      return [];
    }
    if (event.type === "text.delta") {
      // A run that does not stream text puts each answer's text in its durable stream, whole.
      const before = this.#shown?.trip === event.trip ? this.#shown.length : 0;
      // (Its attempt is 0: counted as the latest, so model.answered does not send the text again.)
      this.#shown = {
        trip: event.trip,
        attempt: Math.max(event.attempt, this.#retried.get(event.trip) ?? 1),
        length: before + event.text.length,
        reasoning: 0,
      };
      return [];
    }
    if (event.type !== "model.answered") return [];
    // A subscriber that started past the answering attempt's trip.retry learns of it here.
    if (event.attempt) this.acceptAttempt(event.trip, event.attempt);
    return this.#restOf(event.trip, event.text ?? "");
  }

  /**
   * The deltas to send before a run's result when its last durable events could not be read (no
   * worker to answer the query): the rest of the final answer, the result's `reply` of trip
   * `trips`, as its `model.answered` would have sent it. Only the final trip's text can be
   * recovered: the result does not carry earlier answers' text apart, so an earlier answer whose
   * `model.answered` this subscriber missed stays short.
   */
  beforeResult(result: Pick<RunResult, "reply" | "trips">): TextDelta[] {
    const trip = result.trips;
    if (trip < 1 || trip < this.#trip || (trip === this.#trip && this.#answered)) return []; // its text came whole
    this.#trip = trip;
    return this.#restOf(trip, result.reply);
  }

  /** The rest of trip `trip`'s answer `text`, past what this subscriber was shown of its latest attempt. */
  #restOf(trip: number, text: string): TextDelta[] {
    this.#answered = true;
    const latest = this.#retried.get(trip) ?? 1;
    const shown = this.#shown?.trip === trip && this.#shown.attempt >= latest ? this.#shown : undefined;
    const attempt = shown?.attempt ?? latest;
    const sent = shown && text.length >= shown.length ? shown.length : 0;
    this.#shown = undefined;
    return text.length > sent ? [{ type: "text.delta", trip, attempt, text: text.slice(sent) }] : [];
  }
}

/** What `text` (from character `from` of its whole) holds past the first `shown` characters; "" when it holds none of them (dropped before `from`). */
function rest(text: string, from: number, shown: number): string {
  if (shown < from || shown >= from + text.length) return "";
  return text.slice(shown - from);
}
