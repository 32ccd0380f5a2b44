import { describe, expect, it } from "vitest";
import { AnswerAccumulator } from "./answer-accumulator.js";

const chunk = (from: number, text: string, trip = 1, attempt = 1) => ({ trip, attempt, from, text });

describe("AnswerAccumulator", () => {
  it("appends chunks in order, ignores a chunk seen twice, and fills a chunk that came late in front", () => {
    const answer = new AnswerAccumulator();
    expect(answer.add(chunk(0, "Lun"))).toBe(true);
    expect(answer.add(chunk(3, "ges"))).toBe(true);
    expect(answer.add(chunk(3, "ges"))).toBe(false); // live and from the list: once
    expect(answer.add(chunk(0, "Lunges"))).toBe(false);
    expect(answer.add(chunk(4, "es it"))).toBe(true); // overlapping: only what is new
    expect(answer.latest).toEqual(chunk(0, "Lunges it"));
    const late = new AnswerAccumulator();
    late.add(chunk(6, " it is"));
    expect(late.add(chunk(0, "Lunges"))).toBe(true); // the list read after the first live chunk
    expect(late.latest).toEqual(chunk(0, "Lunges it is"));
  });

  it("after a gap, keeps the newer text from where it starts (a watcher behind it waits for model.answered)", () => {
    const answer = new AnswerAccumulator();
    answer.add(chunk(0, "Lun"));
    expect(answer.add(chunk(10, "is"))).toBe(true);
    expect(answer.latest).toEqual(chunk(10, "is"));
    expect(answer.add(chunk(0, "Lunges it is"))).toBe(true); // the whole answer again (after a reconnect)
    expect(answer.latest).toEqual(chunk(0, "Lunges it is"));
  });

  it("a newer attempt or trip replaces the answer; an earlier attempt's chunk that comes late is ignored", () => {
    const answer = new AnswerAccumulator();
    answer.add(chunk(0, "This first answer"));
    expect(answer.add(chunk(0, "The", 1, 2))).toBe(true);
    expect(answer.add(chunk(17, " is lost", 1, 1))).toBe(false);
    expect(answer.latest).toEqual(chunk(0, "The", 1, 2));
    expect(answer.add(chunk(0, "Done", 2, 1))).toBe(true);
    expect(answer.latest).toEqual(chunk(0, "Done", 2, 1));
  });

  it("puts the reasoning together apart from the text: chunks twice, out of order, and a newer attempt's from nothing", () => {
    const thought = (reasoningFrom: number, reasoning: string, attempt = 1) => ({
      ...chunk(0, "", 1, attempt),
      reasoningFrom,
      reasoning,
    });
    const answer = new AnswerAccumulator();
    expect(answer.add(thought(0, "Knees"))).toBe(true);
    expect(answer.add(thought(5, " first"))).toBe(true);
    expect(answer.add(thought(5, " first"))).toBe(false); // live and from the list: once
    expect(answer.add({ ...chunk(0, "Lunges"), reasoningFrom: 11, reasoning: "" })).toBe(true); // the text starts
    expect(answer.add(chunk(6, " it is"))).toBe(true);
    expect(answer.latest).toEqual({ ...chunk(0, "Lunges it is"), reasoningFrom: 0, reasoning: "Knees first" });
    const late = new AnswerAccumulator();
    late.add(thought(5, " first"));
    expect(late.add(thought(0, "Knees"))).toBe(true); // the list read after the first live chunk
    expect(late.latest?.reasoning).toBe("Knees first");
    expect(late.add(thought(0, "Hips", 2))).toBe(true); // a retried attempt: its reasoning alone
    expect(late.add(thought(5, " and knees", 1))).toBe(false);
    expect(late.latest).toEqual(thought(0, "Hips", 2));
  });
});
