/**
 * A task's events as A2A streams them, read from the session message's UI message stream (the
 * library's one reading of a run's stream): the answer's text as it is written, as `artifact-update`
 * events of the one `answer` artifact (the first replaces, the next append; a model call retried
 * mid-answer replaces the text with what stands), then the final `status-update` from the message's
 * turn (completed, failed, canceled, or input-required with the calls that wait). A stream always
 * reads the message from its start, so a resubscribe after a cut connection gets every event once.
 */
import type { Client } from "@temporalio/client";
import type { StreamResponse } from "@a2a-js/sdk";
import type { UIMessageChunk } from "ai";
import type { PendingApproval } from "../core/types.js";
import type { SessionTurn } from "../workflows/definitions.js";
import { uiMessageStream } from "../streaming/client/index.js";
import { ANSWER_ARTIFACT, taskStatus, textPart, type TaskRef } from "./task-view.js";

/** The answer's text as chunks come: what to send for each chunk (an append, or the whole text again). */
class AnswerText {
  text = "";
  #stepStart = 0;
  #written = false;

  /** The artifact update a chunk makes, if any: `append` false when the text is replaced from its start. */
  next(chunk: UIMessageChunk): { text: string; append: boolean } | undefined {
    if (chunk.type === "start-step") this.#stepStart = this.text.length;
    else if (chunk.type === "reset-step") {
      this.text = this.text.slice(0, this.#stepStart);
      return this.#update(this.text, false);
    } else if (chunk.type === "text-start" && this.text !== "") return this.#add("\n\n");
    else if (chunk.type === "text-delta" && chunk.delta !== "") return this.#add(chunk.delta);
    return undefined;
  }

  #add(delta: string) {
    this.text += delta;
    return this.#update(delta, this.#written);
  }

  #update(text: string, append: boolean) {
    this.#written = true;
    return { text, append };
  }
}

/** What the events need besides the stream: the turn once it has settled, and the calls that wait. */
export interface TurnReads {
  settledTurn(): Promise<SessionTurn>;
  pendingApprovals(): Promise<PendingApproval[]>;
}

/**
 * The events of the message `turn` (started: it has offsets) of `ref`'s session: `working`, the
 * answer's text, and the final status. Returning early (a client gone, `signal` aborted) lets go of
 * the run.
 */
export async function* turnEvents(
  client: Client,
  ref: TaskRef,
  turn: SessionTurn,
  reads: TurnReads,
  signal: AbortSignal,
): AsyncGenerator<StreamResponse> {
  const ids = { taskId: ref.taskId, contextId: ref.contextId, metadata: undefined };
  yield {
    payload: { $case: "statusUpdate", value: { ...ids, status: taskStatus(ref, { ...turn, status: "answering" }) } },
  };
  const chunks = uiMessageStream(client, ref.workflowId, {
    fromOffset: turn.fromOffset!,
    fromMessage: turn.messagesFrom ?? 0,
    endAtApproval: true,
    signal,
  }).getReader();
  const answer = new AnswerText();
  try {
    for (let read = await chunks.read(); !read.done; read = await chunks.read()) {
      const update = answer.next(read.value);
      if (update)
        yield {
          payload: {
            $case: "artifactUpdate",
            value: {
              ...ids,
              artifact: {
                artifactId: ANSWER_ARTIFACT,
                name: ANSWER_ARTIFACT,
                description: "",
                parts: [textPart(update.text)],
                metadata: undefined,
                extensions: [],
              },
              append: update.append,
              lastChunk: false,
            },
          },
        };
    }
  } finally {
    await chunks.cancel().catch(() => undefined);
  }
  if (signal.aborted) return; // the client went away: nobody reads the end
  const settled = await reads.settledTurn();
  const pending = settled.status === "waiting-for-approval" ? await reads.pendingApprovals() : [];
  yield { payload: { $case: "statusUpdate", value: { ...ids, status: taskStatus(ref, settled, pending) } } };
}
