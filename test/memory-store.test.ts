/**
 * The memory stores, with real databases: the same cases run on PGlite in-process (pgvector), on
 * PGlite served over the wire by pglite-socket through the PostgreSQL store's `pg` client
 * (pgvector over the wire), and on a PostgreSQL cluster of Debian's binaries, which has no
 * pgvector (exact search in SQL). Vectors come from the scripted embedding server's function.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MemoryStoreUnavailableError,
  MemoryWriteError,
  memoryStores,
  type MemoryMessageWrite,
  type MemoryStore,
} from "../src/memory/index.js";
import { runMain } from "./support/cli-helpers.js";
import { scriptedEmbedding } from "../src/testing/scripted-embeddings.js";
import {
  startPGliteServer,
  startPostgres,
  type MemoryDatabaseServer,
  type PostgresServer,
} from "./support/memory-postgres.js";

type StoreOptions = { schemaVersion?: number; log?: (line: string) => void };

interface Backend {
  name: string;
  search: "pgvector" | "exact";
  /** A store on the backend's shared database (empty until the first store opens it). */
  shared(options?: StoreOptions): MemoryStore;
  /** A factory of stores on a new, empty database of the backend (several stores may share it, except PGlite in-process). */
  fresh(): Promise<(options?: StoreOptions) => MemoryStore>;
  /** Whether two stores may open the same database at once (PGlite in-process is one store per database). */
  twoStores: boolean;
  stop(): Promise<void>;
}

const cleanups: Array<() => Promise<void> | void> = [];
/** The data directory of the PGlite store the v1 → v2 case made (the CLI reads it). */
let pgliteDataDir: string | undefined;

function pgliteBackend(): Backend {
  return {
    name: "PGlite in-process",
    search: "pgvector",
    shared: (options) => memoryStores.pglite({ log: () => undefined, ...options }),
    fresh: async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "memory-pglite-"));
      pgliteDataDir = dataDir;
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      return (options) => memoryStores.pglite({ dataDir, log: () => undefined, ...options });
    },
    twoStores: false,
    stop: async () => undefined,
  };
}

function wireBackend(name: string, search: "pgvector" | "exact", server: MemoryDatabaseServer, url: string): Backend {
  let databases = 0;
  return {
    name,
    search,
    shared: (options) => memoryStores.postgres({ url, log: () => undefined, ...options }),
    fresh: async () => {
      const fresh = await server.database(`memory_${++databases}`);
      return (options) => memoryStores.postgres({ url: fresh, log: () => undefined, ...options });
    },
    twoStores: true,
    stop: () => server.stop(),
  };
}

const at = (i: number) => new Date(Date.UTC(2026, 11, 1, 9, 0, i)).toISOString();

/** A conversation of `user`: its texts in order, turn by turn (two messages a turn). */
function conversation(user: string, session: string, run: string, texts: string[], start = 0): MemoryMessageWrite[] {
  return texts.map((text, i) => ({
    user,
    session,
    run,
    turn: Math.floor(i / 2),
    index: i % 2,
    role: i % 2 ? "assistant" : "user",
    text,
    createdAt: at(start + i),
    embedding: scriptedEmbedding(text),
  }));
}

const KNEE = [
  "Plan my week of training",
  "Three runs and two strength sessions",
  "I hurt my knee skiing last winter and the knee injury still aches",
  "Then we avoid jumping and keep the knee load low",
  "What should I eat before a long run",
  "Oats and a banana two hours before",
];
const OTHER = [
  "Which shoes suit trail running",
  "Shoes with a deep lug for mud",
  "How much sleep do I need",
  "Seven to nine hours",
];

const backends: Backend[] = [];
let postgres: PostgresServer | undefined;
let pgliteServer: MemoryDatabaseServer | undefined;

beforeAll(async () => {
  [postgres, pgliteServer] = await Promise.all([startPostgres(), startPGliteServer()]);
  backends.push(
    pgliteBackend(),
    wireBackend("PGlite over pglite-socket (pg client)", "pgvector", pgliteServer, pgliteServer.url),
    wireBackend("PostgreSQL 15 without pgvector", "exact", postgres, await postgres.database("memory_shared")),
  );
});

afterAll(async () => {
  await Promise.all([postgres?.stop(), pgliteServer?.stop()]);
  for (const cleanup of cleanups) await cleanup();
});

describe.each(["PGlite in-process", "PGlite over pglite-socket (pg client)", "PostgreSQL 15 without pgvector"])(
  "%s",
  (name) => {
    let backend: Backend;
    let store: MemoryStore;
    const lines: string[] = [];

    beforeAll(() => {
      backend = backends.find((b) => b.name === name)!;
      store = backend.shared({ log: (line) => lines.push(line) });
    });
    afterAll(() => store.close());

    it("migrates an empty database once, even with two opens at once, and says which search is in use", async () => {
      // The shared database is still empty: PGlite in-process is one store per database, so it is opened twice at once instead.
      const other: string[] = [];
      const stores = backend.twoStores ? [store, backend.shared({ log: (line) => other.push(line) })] : [store, store];
      expect(await Promise.all(stores.map((s) => s.open()))).toEqual([
        { search: backend.search },
        { search: backend.search },
      ]);
      const all = [...lines, ...other];
      expect(all.filter((line) => line.includes("schema v0 → v2"))).toHaveLength(1);
      expect(all).toHaveLength(backend.twoStores ? 2 : 1);
      if (backend.twoStores) expect(all.filter((line) => line.includes(", schema v2,"))).toHaveLength(1);
      expect(all[0]).toContain(backend.search === "pgvector" ? "pgvector search (HNSW, cosine)" : "exact search");
      if (backend.twoStores) await stores[1]!.close();
    });

    it("migrates a database of schema v1 (messages only) to v2 (working memory), keeping its messages", async () => {
      const make = await backend.fresh();
      const migrating: string[] = [];
      const v1 = make({ schemaVersion: 1, log: (line) => migrating.push(line) });
      await v1.open();
      await v1.addMessages(conversation("v1-user", "s1", "r1", KNEE.slice(0, 2)));
      // v1 has no working memory table: the v2 migration is what adds it.
      await expect(v1.setWorkingMemory("v1-user", "# notes", 0, "k1")).rejects.toThrow(/memory_working/);
      await v1.close();
      const v2 = make({ log: (line) => migrating.push(line) });
      await v2.open();
      expect(migrating.map((line) => /schema (.*?),/.exec(line)?.[1])).toEqual(["v0 → v1", "v1 → v2"]);
      expect((await v2.inspect("v1-user")).messages.map((m) => m.text)).toEqual(KNEE.slice(0, 2));
      expect(await v2.setWorkingMemory("v1-user", "# notes", 0, "k1")).toEqual({ ok: true, version: 1 });
      await v2.close();
    });

    it("writes messages once per (run, turn, index), however often a retry writes them, and inspect lists them", async () => {
      const messages = conversation("writer", "s1", "r1", KNEE);
      await store.addMessages(messages);
      await store.addMessages(messages.map((m) => ({ ...m, text: `${m.text} (retried)` })));
      await store.addMessages([
        ...messages.slice(2, 4),
        ...conversation("writer", "s1", "r1", ["a new turn"], 0).map((m) => ({ ...m, turn: 3 })),
      ]);
      const { messages: stored, workingMemory } = await store.inspect("writer");
      expect(workingMemory).toBeUndefined();
      expect(stored.map((m) => m.text)).toEqual([...KNEE.slice(0, 1), "a new turn", ...KNEE.slice(1)]);
      expect(stored[2]).toEqual(withoutEmbedding(messages[1]!));
    });

    it("recalls the topK most similar messages of the user, each with messageRange neighbours of its session, in session order", async () => {
      await store.addMessages([
        ...conversation("alice", "s-knee", "r-knee", KNEE, 0),
        ...conversation("alice", "s-other", "r-other", OTHER, 10),
        ...conversation("bob", "s-bob", "r-bob", KNEE, 20),
      ]);
      const embedding = scriptedEmbedding("does my knee injury matter for squats");
      const recalled = await store.recall({ user: "alice", embedding, topK: 1, messageRange: 1 });
      expect(recalled.map((m) => [m.text, m.neighbour])).toEqual([
        [KNEE[1], true],
        [KNEE[2], false],
        [KNEE[3], true],
      ]);
      expect(recalled.every((m) => m.user === "alice" && m.session === "s-knee")).toBe(true);
      expect(recalled[1]!.score).toBeGreaterThan(0.3);
      expect(recalled[0]!.score).toBe(recalled[1]!.score);

      const two = await store.recall({
        user: "alice",
        embedding: scriptedEmbedding("knee shoes"),
        topK: 2,
        messageRange: 0,
      });
      expect(two).toHaveLength(2);
      expect(two.every((m) => !m.neighbour)).toBe(true);
      // Session order: the knee session (said first) before the shoes session.
      expect(two.map((m) => m.session)).toEqual(["s-knee", "s-other"]);
    });

    it("recalls from one session with scope session, and leaves out the asking run's messages (excludeRun), neighbours too", async () => {
      const embedding = scriptedEmbedding("knee injury");
      const inSession = await store.recall({ user: "alice", embedding, topK: 3, messageRange: 0, session: "s-other" });
      expect(inSession.length).toBeGreaterThan(0);
      expect(inSession.every((m) => m.session === "s-other")).toBe(true);

      await store.addMessages(
        conversation("alice", "s-knee", "r-asking", ["my knee injury again", "noted"], 30).map((m) => ({
          ...m,
          turn: 9,
        })),
      );
      const excluded = await store.recall({
        user: "alice",
        embedding,
        topK: 2,
        messageRange: 5,
        excludeRun: "r-asking",
      });
      expect(excluded.some((m) => m.run === "r-asking")).toBe(false);
      const included = await store.recall({ user: "alice", embedding, topK: 1, messageRange: 0 });
      expect(included.map((m) => m.text)).toEqual(["my knee injury again"]);
    });

    it("never recalls another user's messages, even when they match better", async () => {
      const recalled = await store.recall({
        user: "bob",
        embedding: scriptedEmbedding("my knee injury again"),
        topK: 5,
        messageRange: 1,
      });
      expect(recalled.length).toBeGreaterThan(0);
      expect(recalled.every((m) => m.user === "bob")).toBe(true);
      expect(
        await store.recall({ user: "nobody", embedding: scriptedEmbedding("knee"), topK: 5, messageRange: 1 }),
      ).toEqual([]);
    });

    it("writes working memory by compare-and-set: of two writers at once one wins, the other gets the current document; a retried key returns its version", async () => {
      const [first, second] = await Promise.all([
        store.setWorkingMemory("carol", "# Carol\n- knee: injured", 0, "call-a"),
        store.setWorkingMemory("carol", "# Carol\n- goal: 10k", 0, "call-b"),
      ]);
      const results = [first, second];
      const winner = results.findIndex((r) => r.ok);
      expect(results.filter((r) => r.ok)).toEqual([{ ok: true, version: 1 }]);
      const loser = results[1 - winner]!;
      const winnerContent = winner === 0 ? "# Carol\n- knee: injured" : "# Carol\n- goal: 10k";
      expect(loser.ok).toBe(false);
      expect(!loser.ok && loser.current).toMatchObject({ content: winnerContent, version: 1 });
      // The winner's activity retried (its key): its version, not a conflict, and nothing written again.
      expect(await store.setWorkingMemory("carol", "anything", 0, winner === 0 ? "call-a" : "call-b")).toEqual({
        ok: true,
        version: 1,
      });
      // The loser retries against the current version: both updates are kept.
      const merged = { notes: `${winnerContent}\n- both` };
      expect(await store.setWorkingMemory("carol", merged, 1, "call-c")).toEqual({ ok: true, version: 2 });
      expect(await store.setWorkingMemory("carol", "stale", 1, "call-d")).toMatchObject({
        ok: false,
        current: { content: merged, version: 2 },
      });
      expect(await store.getWorkingMemory("carol")).toMatchObject({ content: merged, version: 2 });
      expect(await store.getWorkingMemory("nobody")).toBeUndefined();
    });

    it("forgets a user: working memory and messages gone, recall finds nothing, other users untouched", async () => {
      await store.setWorkingMemory("alice", "# Alice", 0, "alice-1");
      const before = (await store.inspect("alice")).messages.length;
      expect(await store.forget("alice")).toEqual({ messages: before, workingMemory: true });
      expect(await store.inspect("alice")).toEqual({ messages: [] });
      expect(
        await store.recall({ user: "alice", embedding: scriptedEmbedding("knee"), topK: 5, messageRange: 2 }),
      ).toEqual([]);
      expect((await store.inspect("bob")).messages).toHaveLength(KNEE.length);
      expect(await store.forget("alice")).toEqual({ messages: 0, workingMemory: false });
      // A key used before the forget writes anew (its document is gone).
      expect(await store.setWorkingMemory("alice", "# Alice again", 0, "alice-1")).toEqual({ ok: true, version: 1 });
      expect(lines).toHaveLength(1);
    });
  },
);

function withoutEmbedding(message: MemoryMessageWrite) {
  const { embedding: _, ...rest } = message;
  return rest;
}

describe("bad input and unreachable stores", () => {
  it("an unreachable PostgreSQL is a retryable MemoryStoreUnavailableError naming the URL without its password", async () => {
    const store = memoryStores.postgres({ url: "postgres://app:s3cret@127.0.0.1:1/memory", log: () => undefined });
    const error = await store.open().catch((e: unknown) => e);
    expect(MemoryStoreUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ store: "postgres", target: "postgres://app@127.0.0.1:1/memory", retryable: true });
    expect((error as Error).message).not.toContain("s3cret");
    await expect(store.addMessages(conversation("u", "s", "r", ["hi"]))).rejects.toThrow(MemoryStoreUnavailableError);
  });

  it("a PostgreSQL that stops mid-use fails calls with MemoryStoreUnavailableError, and works again once it is back", async () => {
    const make = await backends[2]!.fresh();
    const store = make();
    await store.open();
    await postgres!.pause();
    await expect(store.inspect("u")).rejects.toThrow(MemoryStoreUnavailableError);
    await postgres!.resume();
    expect(await store.inspect("u")).toEqual({ messages: [] });
    await store.close();
  });

  it("a malformed message is a MemoryWriteError naming the field, and nothing is written", async () => {
    const store = backends[2]!.shared({ log: () => undefined });
    const [good] = conversation("dave", "s", "r", ["hello"]);
    const bad = { ...good!, index: 1, embedding: [Number.NaN] };
    const error = await store.addMessages([good!, bad]).catch((e: unknown) => e);
    expect(MemoryWriteError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ field: "messages[1].embedding" });
    expect((await store.inspect("dave")).messages).toEqual([]);
    await store.close();
  });
});

describe("durable-agent memory inspect / forget", () => {
  it("inspects and forgets a user's memory in a PostgreSQL store (--postgres or DURABLE_AGENT_MEMORY_URL)", async () => {
    const url = await postgres!.database("memory_cli");
    const store = memoryStores.postgres({ url, log: () => undefined });
    await store.addMessages(conversation("erin", "s1", "r1", KNEE.slice(0, 3)));
    await store.setWorkingMemory("erin", "# Erin\n- knee: injured", 0, "k1");
    await store.close();

    const inspected = await runMain(["memory", "inspect", "--user", "erin", "--postgres", url]);
    expect(inspected.code).toBe(0);
    expect(inspected.stdout).toContain("Working memory of erin (version 1,");
    expect(inspected.stdout).toContain("- knee: injured");
    expect(inspected.stdout).toContain("3 message(s):");
    expect(inspected.stdout).toMatch(/CREATED +SESSION +TURN +ROLE +TEXT/);
    expect(inspected.stdout).toContain(KNEE[2]);
    expect(inspected.stderr).toContain("exact search");

    process.env.DURABLE_AGENT_MEMORY_URL = url;
    try {
      const json = await runMain(["memory", "inspect", "--user", "erin", "--json"]);
      expect(JSON.parse(json.stdout)).toMatchObject({
        user: "erin",
        workingMemory: { version: 1 },
        messages: [{}, {}, {}],
      });
      expect(await runMain(["memory", "forget", "--user", "erin"])).toMatchObject({
        code: 0,
        stdout: "Forgot user erin: 3 message(s) and the working memory.",
      });
    } finally {
      delete process.env.DURABLE_AGENT_MEMORY_URL;
    }
    const after = await runMain(["memory", "inspect", "--user", "erin", "--postgres", url]);
    expect(after.stdout).toContain("No working memory for erin.\n0 message(s).");
  });

  it("reads a PGlite store's data directory (--pglite)", async () => {
    const inspected = await runMain(["memory", "inspect", "--user", "v1-user", "--pglite", pgliteDataDir!]);
    expect(inspected).toMatchObject({ code: 0 });
    expect(inspected.stdout).toContain("Working memory of v1-user (version 1,");
    expect(inspected.stdout).toContain(KNEE[1]);
  });

  it("exits 2 naming the store without its password when it cannot be reached, and 64 on bad arguments", async () => {
    const down = await runMain([
      "memory",
      "forget",
      "--user",
      "erin",
      "--postgres",
      "postgres://app:s3cret@127.0.0.1:1/memory",
    ]);
    expect(down.code).toBe(2);
    expect(down.stderr).toContain("Cannot reach the postgres memory store at postgres://app@127.0.0.1:1/memory");
    expect(down.stderr).not.toContain("s3cret");
    for (const [args, message] of [
      [["memory", "inspect", "--postgres", "postgres://x@127.0.0.1:1/m"], "Name the user"],
      [["memory", "inspect", "--user", "a\u0007b", "--postgres", "postgres://x@127.0.0.1:1/m"], "control characters"],
      [["memory", "inspect", "--user", "erin"], "Name the store"],
      [["memory", "wipe", "--user", "erin", "--pglite", "/tmp/x"], 'Unknown memory command "wipe"'],
      [
        ["memory", "inspect", "--user", "erin", "--pglite", "/tmp/x", "--postgres", "postgres://x@h/m"],
        "Give one store",
      ],
      [["memory", "inspect", "--user", "erin", "--address", "127.0.0.1:7233", "--pglite", "/tmp/x"], "does not apply"],
    ] as const) {
      const result = await runMain([...args]);
      expect(result.code, args.join(" ")).toBe(64);
      expect(result.stderr).toContain(message);
    }
  });
});
