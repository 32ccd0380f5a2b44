import { describe, expect, it } from "vitest";
import { jsonEqual, PlaybackRecording } from "./playback.js";

describe("PlaybackRecording: recorded calls matched by name and deep-equal input, each used once, in order", () => {
  it("jsonEqual compares parsed JSON: key order does not matter, array order does, undefined keys are absent", () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: "1" }, { a: 1 })).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
  });

  it("takes the first unused match; a second equal call takes the next recording; no match is undefined; carry() keeps what was used", () => {
    const recording = new PlaybackRecording({
      toolCalls: [
        { name: "get", input: { id: 1 }, output: "first", status: "ok" },
        { name: "get", input: { id: 2 }, output: "other", status: "ok" },
        { name: "get", input: { id: 1 }, output: "second", status: "ok" },
      ],
      backstops: [{ name: "audit", prompt: "Audit." }],
      unmatchedToolCalls: "refuse",
    });
    expect(recording.take("get", { id: 1 })?.output).toBe("first");
    expect(recording.take("get", { id: 1 })?.output).toBe("second");
    expect(recording.take("get", { id: 1 })).toBeUndefined();
    expect(recording.take("put", { id: 2 })).toBeUndefined();
    expect(recording.carry().used).toEqual([0, 2]);
    expect(new PlaybackRecording(recording.carry()).take("get", { id: 1 })).toBeUndefined();
    expect(recording.backstop("audit")).toEqual({ name: "audit", prompt: "Audit." });
  });
});
