import { describe, expect, it } from "vitest";
import type { WorkflowExecutionDescription } from "@temporalio/client";
import { defaultPayloadConverter, type LoadedDataConverter } from "@temporalio/common";
import { ACTIVITY } from "../../core/constants.js";
import { AnswerDeltas, partialAnswerOf } from "./answer-deltas.js";

const texts = (deltas: unknown) => (deltas as { text: string }[]).map((d) => d.text).join("");
const answered = (trip: number, text: string) => ({ type: "model.answered" as const, trip, text, toolCalls: [] });

describe("AnswerDeltas", () => {
  it("sends what each heartbeat adds, and the rest of the answer before its model.answered", () => {
    const deltas = new AnswerDeltas();
    deltas.beforeDurable({ type: "trip.started", trip: 1 });
    expect(texts(deltas.fromPartial({ trip: 1, attempt: 1, from: 0, text: "Lun" }))).toBe("Lun");
    expect(texts(deltas.fromPartial({ trip: 1, attempt: 1, from: 0, text: "Lunges" }))).toBe("ges");
    expect(texts(deltas.fromPartial({ trip: 1, attempt: 1, from: 0, text: "Lunges" }))).toBe("");
    expect(texts(deltas.beforeDurable(answered(1, "Lunges it is.")))).toBe(" it is.");
    // answered: a late heartbeat of that trip sends nothing more
    expect(deltas.fromPartial({ trip: 1, attempt: 1, from: 0, text: "Lunges it is." })).toEqual([]);
  });

  it("a retried attempt waits for its trip.retry; after it, the failed attempt's last heartbeat is ignored and the new text starts again", () => {
    const deltas = new AnswerDeltas();
    deltas.beforeDurable({ type: "trip.started", trip: 1 });
    expect(texts(deltas.fromPartial({ trip: 1, attempt: 1, from: 0, text: "This fir" }))).toBe("This fir");
    expect(deltas.fromPartial({ trip: 1, attempt: 2, from: 0, text: "The" })).toBe("needs-marker");
    deltas.beforeDurable({ type: "trip.retry", trip: 1, attempt: 2 });
    expect(deltas.fromPartial({ trip: 1, attempt: 1, from: 0, text: "This fir" })).toEqual([]);
    const sent = deltas.fromPartial({ trip: 1, attempt: 2, from: 0, text: "The" });
    expect(sent).toEqual([{ type: "text.delta", trip: 1, attempt: 2, text: "The" }]);
    expect(deltas.beforeDurable(answered(1, "The second."))).toEqual([
      { type: "text.delta", trip: 1, attempt: 2, text: " second." },
    ]);
  });

  it("after trip.retry with no heartbeat of the new attempt seen, the whole answer comes with model.answered, as that attempt's", () => {
    const deltas = new AnswerDeltas();
    deltas.beforeDurable({ type: "trip.started", trip: 1 });
    deltas.fromPartial({ trip: 1, attempt: 1, from: 0, text: "This fir" });
    deltas.beforeDurable({ type: "trip.retry", trip: 1, attempt: 2 });
    expect(deltas.beforeDurable(answered(1, "The second."))).toEqual([
      { type: "text.delta", trip: 1, attempt: 2, text: "The second." },
    ]);
  });

  it("a subscriber that started past a retried attempt's trip.retry labels the answer with the attempt its model.answered names", () => {
    const deltas = new AnswerDeltas();
    expect(deltas.beforeDurable({ ...answered(1, "Lunges it is."), attempt: 2 })).toEqual([
      { type: "text.delta", trip: 1, attempt: 2, text: "Lunges it is." },
    ]);
  });

  it("a run that does not stream text has its text in durable deltas: model.answered adds nothing", () => {
    const deltas = new AnswerDeltas();
    deltas.beforeDurable({ type: "trip.started", trip: 1 });
    expect(deltas.beforeDurable({ type: "text.delta", trip: 1, attempt: 0, text: "Hello." })).toEqual([]);
    expect(deltas.beforeDurable(answered(1, "Hello."))).toEqual([]);
  });

  it("a run that does not stream text has its reasoning in a durable delta: an answer without text asks for none again", () => {
    const deltas = new AnswerDeltas();
    deltas.beforeDurable({ type: "trip.started", trip: 1 });
    expect(deltas.beforeDurable({ type: "reasoning.delta", trip: 1, attempt: 0, text: "Swap first." })).toEqual([]);
    // An answer that only called tools: no text shown, so the reasoning is asked for, and all of it was shown.
    expect(deltas.wantsReasoning(1)).toBe(true);
    expect(deltas.reasoningBefore(1, "Swap first.")).toEqual([]);
    expect(deltas.beforeDurable({ ...answered(1, ""), text: null })).toEqual([]);
  });

  it("sends the reasoning a heartbeat carries before its text, only until the text starts, and a retried attempt's from its start", () => {
    const deltas = new AnswerDeltas();
    deltas.beforeDurable({ type: "trip.started", trip: 1 });
    const partial = (text: string, reasoning: string, attempt = 1) => ({ trip: 1, attempt, from: 0, text, reasoning });
    expect(deltas.fromPartial(partial("", "Kne"))).toEqual([
      { type: "reasoning.delta", trip: 1, attempt: 1, text: "Kne" },
    ]);
    expect(deltas.fromPartial(partial("Lun", "Knees"))).toEqual([
      { type: "reasoning.delta", trip: 1, attempt: 1, text: "es" },
      { type: "text.delta", trip: 1, attempt: 1, text: "Lun" },
    ]);
    // After the text started, more reasoning is not sent (it would reach later subscribers before the text).
    expect(deltas.fromPartial(partial("Lunges", "Knees, hips"))).toEqual([
      { type: "text.delta", trip: 1, attempt: 1, text: "ges" },
    ]);
    deltas.beforeDurable({ type: "trip.retry", trip: 1, attempt: 2 });
    expect(deltas.fromPartial(partial("", "Hips", 2))).toEqual([
      { type: "reasoning.delta", trip: 1, attempt: 2, text: "Hips" },
    ]);
    // Reasoning dropped from the heartbeat's window: not sent from the middle.
    deltas.beforeDurable(answered(1, "Done."));
    deltas.beforeDurable({ type: "trip.started", trip: 2 });
    expect(deltas.fromPartial({ trip: 2, attempt: 1, from: 0, text: "", reasoning: "late", reasoningFrom: 9 })).toEqual(
      [],
    );
  });

  it("a subscriber behind the heartbeat's window waits for model.answered", () => {
    const deltas = new AnswerDeltas();
    deltas.beforeDurable({ type: "trip.started", trip: 1 });
    expect(deltas.fromPartial({ trip: 1, attempt: 1, from: 10, text: "klmnop" })).toEqual([]);
    expect(texts(deltas.beforeDurable(answered(1, "abcdefghijklmnopq")))).toBe("abcdefghijklmnopq");
  });

  describe("beforeResult (a closed run whose last durable events could not be read)", () => {
    const result = (trips: number, reply: string) => ({ trips, reply });

    it("after part of the final answer was shown, sends only the rest, as that attempt's", () => {
      const deltas = new AnswerDeltas();
      deltas.beforeDurable({ type: "trip.started", trip: 2 });
      expect(texts(deltas.fromPartial({ trip: 2, attempt: 1, from: 0, text: "Lun" }))).toBe("Lun");
      expect(deltas.beforeResult(result(2, "Lunges it is."))).toEqual([
        { type: "text.delta", trip: 2, attempt: 1, text: "ges it is." },
      ]);
    });

    it("with none of it shown, sends all of it; of a retried attempt once its trip.retry was seen", () => {
      expect(new AnswerDeltas().beforeResult(result(1, "Lunges it is."))).toEqual([
        { type: "text.delta", trip: 1, attempt: 1, text: "Lunges it is." },
      ]);
      const retried = new AnswerDeltas();
      retried.beforeDurable({ type: "trip.started", trip: 1 });
      retried.fromPartial({ trip: 1, attempt: 1, from: 0, text: "This fir" });
      retried.beforeDurable({ type: "trip.retry", trip: 1, attempt: 2 });
      expect(retried.beforeResult(result(1, "The second."))).toEqual([
        { type: "text.delta", trip: 1, attempt: 2, text: "The second." },
      ]);
    });

    it("sends nothing when the answer is already whole: heartbeats showed all of it, or its model.answered was seen", () => {
      const shown = new AnswerDeltas();
      shown.beforeDurable({ type: "trip.started", trip: 1 });
      expect(texts(shown.fromPartial({ trip: 1, attempt: 1, from: 0, text: "Lunges it is." }))).toBe("Lunges it is.");
      expect(shown.beforeResult(result(1, "Lunges it is."))).toEqual([]);
      const answered1 = new AnswerDeltas();
      answered1.beforeDurable({ type: "trip.started", trip: 1 });
      expect(texts(answered1.beforeDurable(answered(1, "Lunges it is.")))).toBe("Lunges it is.");
      expect(answered1.beforeResult(result(1, "Lunges it is."))).toEqual([]);
    });

    it("sends nothing for a run that stopped before any answer", () => {
      expect(new AnswerDeltas().beforeResult(result(0, ""))).toEqual([]);
    });
  });
});

describe("partialAnswerOf", () => {
  const converter = { payloadConverter: defaultPayloadConverter, payloadCodecs: [] } as unknown as LoadedDataConverter;
  /** A description whose pending model call is on `attempt`, with the heartbeat details `details` last recorded. */
  const describing = (attempt: number, details: unknown) =>
    ({
      raw: {
        pendingActivities: [
          {
            activityType: { name: ACTIVITY.modelCall },
            attempt,
            heartbeatDetails: { payloads: [defaultPayloadConverter.toPayload(details)] },
          },
        ],
      },
    }) as unknown as WorkflowExecutionDescription;
  const lost = { trip: 2, attempt: 1, from: 0, text: "The lost attempt's text" };

  it("reads the answer in flight from the pending model call's heartbeat", async () => {
    expect(await partialAnswerOf(describing(1, lost), converter)).toEqual(lost);
  });

  it("a retried call whose new attempt has not heartbeated yet shows the failed attempt's details: no answer in flight", async () => {
    // A subscriber resumed past the new attempt's trip.retry knows of no retry: these details would be sent as the answer.
    expect(await partialAnswerOf(describing(2, lost), converter)).toBeUndefined();
    expect(await partialAnswerOf(describing(2, { ...lost, attempt: 2 }), converter)).toEqual({ ...lost, attempt: 2 });
  });
});
