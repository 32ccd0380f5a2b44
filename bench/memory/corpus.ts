/**
 * The benchmark's stored messages: sessions of 20 messages made of words drawn from a fixed
 * vocabulary by a seeded PRNG, embedded by the scripted embedding server's function (256
 * dimensions), for one user or spread over many.
 */
import type { MemoryMessageWrite } from "../../src/memory/index.js";
import { scriptedEmbedding } from "../../src/testing/scripted-embeddings.js";
import { Prng } from "../soak/prng.js";

const VOCABULARY = (
  "knee ankle shoulder back hip run swim bike lift squat lunge plank stretch sleep protein carbs oats banana rice " +
  "marathon race tempo interval hill trail road track pace heart rate zone recovery injury pain rest week month " +
  "plan goal weight strength endurance speed mobility yoga coach diet water coffee morning evening travel work " +
  "family holiday rain snow heat cold shoes watch app music podcast friend club gym pool ocean lake mountain city"
).split(" ");

/** Changes when the corpus does (a cached filled store of another corpus is not reused). */
export const CORPUS_VERSION = 1;

/** Messages in a session. */
export const SESSION_LENGTH = 20;

/** The user of message `n` in a layout of `users` users (round robin, so every user grows alike). */
export const userOf = (n: number, users: number) => `user-${n % users}`;

/** A sentence of 6–14 words. */
export function sentence(prng: Prng): string {
  const length = 6 + Math.floor(prng.next() * 9);
  return Array.from({ length }, () => VOCABULARY[Math.floor(prng.next() * VOCABULARY.length)]).join(" ");
}

/** Messages `from` … `to - 1` of a corpus spread over `users` users (each user's own sessions of SESSION_LENGTH). */
export function messages(from: number, to: number, users: number, seed = 7): MemoryMessageWrite[] {
  const out: MemoryMessageWrite[] = [];
  for (let n = from; n < to; n++) {
    const prng = new Prng(seed * 1_000_003 + n);
    const perUser = Math.floor(n / users);
    const session = Math.floor(perUser / SESSION_LENGTH);
    const place = perUser % SESSION_LENGTH;
    const text = sentence(prng);
    out.push({
      user: userOf(n, users),
      session: `${userOf(n, users)}-s${session}`,
      run: `${userOf(n, users)}-s${session}-run`,
      turn: Math.floor(place / 2),
      index: place % 2,
      role: place % 2 ? "assistant" : "user",
      text,
      createdAt: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
      embedding: scriptedEmbedding(text),
    });
  }
  return out;
}
