/**
 * The memory activities (`memory.recall`, `memory.remember`) of agents with `memory`: what the
 * workflow records of memory comes from them, so replay, fork and playback never ask the store.
 * A store that fails is a retryable `MemoryStoreError` (the run waits); an embedder error is
 * classified as a model error is (`MODEL_ERROR_TABLE`).
 */
import { Context, log } from "@temporalio/activity";
import type {
  MemoryRecallInput,
  MemoryRecallOutput,
  MemoryRememberInput,
  MemoryRememberOutput,
} from "../core/memory.js";
import { AgentOptionsError, DurableAgentError } from "../errors.js";
import { toFailure } from "../core/typed-failures.js";
import { classifyModelError, modelApiErrorFor } from "../models/model-error-table.js";
import { embedTexts, initialWorkingMemory, type Memory } from "../memory/index.js";
import { lookupAgent, type AgentRegistry } from "./registry.js";
import { runRefOf } from "../run-reads/index.js";

/** The `memory.recall` and `memory.remember` activities. */
export function createMemoryActivities(registry: AgentRegistry) {
  const memoryOf = (agent: string): Memory => {
    const memory = lookupAgent(registry, agent).options.memory;
    if (!memory) throw toFailure(new AgentOptionsError("memory", `agent "${agent}" has no memory on this worker`));
    return memory;
  };
  return {
    async recall({ agent, user, input }: MemoryRecallInput): Promise<MemoryRecallOutput> {
      const memory = memoryOf(agent);
      const { workflowId } = runOf();
      const store = await storeStep(memory, "open", () => memory.opened());
      const working = memory.spec.workingMemory
        ? await storeStep(memory, "read the working memory", () => store.getWorkingMemory(user))
        : undefined;
      const workingMemory = memory.spec.workingMemory
        ? { content: working?.content ?? initialWorkingMemory(memory), version: working?.version ?? 0 }
        : undefined;
      if (input.trim() === "") return { ...(workingMemory ? { workingMemory } : {}), recalled: [] };
      const [embedding] = await embedderStep(memory, [input]);
      const { topK, messageRange, scope } = memory.spec.recall;
      const found = await storeStep(memory, "recall", () =>
        store.recall({
          user,
          embedding: embedding!,
          topK,
          messageRange,
          ...(scope === "session" ? { session: workflowId } : { excludeRun: workflowId }),
        }),
      );
      const recalled = found.map(({ user: _user, ...message }) => message);
      return { ...(workingMemory ? { workingMemory } : {}), recalled };
    },

    async remember({ agent, user, turn, messages, at }: MemoryRememberInput): Promise<MemoryRememberOutput> {
      const memory = memoryOf(agent);
      const { workflowId } = runOf();
      const store = await storeStep(memory, "open", () => memory.opened());
      const embeddings = await embedderStep(
        memory,
        messages.map((m) => m.text),
      );
      const rows = messages.map((message, i) => ({
        user,
        session: workflowId,
        run: workflowId,
        turn,
        index: message.index,
        role: message.role,
        text: message.text,
        createdAt: at,
        embedding: embeddings[i]!,
      }));
      await storeStep(memory, "store messages", () => store.addMessages(rows));
      return { stored: rows.length };
    },
  };
}

function runOf(): { workflowId: string } {
  return runRefOf(Context.current());
}

/**
 * A store call. A store that cannot be reached (`MemoryStoreUnavailableError`, or any error of no
 * known type) fails the attempt retryably: the run waits for the store. A malformed write fails it for good.
 */
async function storeStep<T>(memory: Memory, operation: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log.warn("memory store failed", { store: memory.store.kind, operation, error: message.slice(0, 500) });
    if (!DurableAgentError.isInstance(error)) throw error; // retried
    const typed = error as DurableAgentError;
    throw toFailure(typed, { nonRetryable: (typed as { retryable?: boolean }).retryable !== true });
  }
}

/** The embedder's vectors; its failure is classified as a model call's is (permanent fails the run, transient is retried). */
async function embedderStep(memory: Memory, texts: string[]): Promise<number[][]> {
  try {
    return await embedTexts(memory, texts, Context.current().cancellationSignal);
  } catch (error) {
    const modelId = typeof memory.embedder === "string" ? memory.embedder : memory.embedder.modelId;
    const { fault } = classifyModelError(error);
    const typed = modelApiErrorFor(error, modelId);
    log.warn("embedder failed", { modelId, error: typed.message, permanent: fault === "permanent" });
    throw toFailure(typed, { nonRetryable: fault === "permanent" });
  }
}
