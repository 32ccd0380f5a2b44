import { setTimeout as sleep } from "node:timers/promises";
import { MockActivityEnvironment } from "@temporalio/testing";
import { describe, expect, it } from "vitest";
import { heartbeatWith, keepAlive } from "./keep-alive.js";

describe("keepAlive", () => {
  it("sends a keep-alive heartbeat only a whole interval after the last heartbeat of either kind, with the last details", async () => {
    const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 300 }); // a keep-alive every 100 ms at most
    const beats: { at: number; details: unknown; own: boolean }[] = [];
    let own = false;
    env.on("heartbeat", (details: unknown) => beats.push({ at: Date.now(), details, own }));
    const chatty = keepAlive(async () => {
      for (let i = 0; i < 12; i++) {
        own = true;
        heartbeatWith(`text ${i}`); // a streamed answer's heartbeats, 30 ms apart
        own = false;
        await sleep(30);
      }
      await sleep(350); // then silent: keep-alive heartbeats carry the last text
    });
    await env.run(chatty);
    const keptAlive = beats
      .map((beat, i) => ({ ...beat, gap: beat.at - (beats[i - 1]?.at ?? 0) }))
      .filter((b) => !b.own);
    expect(keptAlive.length).toBeGreaterThanOrEqual(1);
    for (const beat of keptAlive) {
      expect(beat.gap).toBeGreaterThanOrEqual(95); // 100 ms by the code's clock; this one reads a moment later
      expect(beat.details).toBe("text 11");
    }
  });
});
