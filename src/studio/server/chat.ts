/**
 * The studio's chat panel's routes: the library's own chat handler (`createChatHandler`, src/chat)
 * for each agent of the module, under `/api/chat/<agent>`: `POST` sends a message (a chat is a
 * session of the agent, run by the studio's worker) or a decision, `GET …/<chatId>/stream` resumes
 * the answer, `DELETE …/<chatId>/stream` stops it. The caller is the studio's `as` (else
 * "studio"), its chats its own; the studio's token and Origin checks ran before, and the handler
 * checks the Origin again, as it does for any app.
 */
import type { Client } from "@temporalio/client";
import { createChatHandler, type ChatHandler } from "../../chat/index.js";
import type { Agent } from "../../facade/define-agent.js";
import { StudioRequestError } from "./http-error.js";

/** The owner of the studio's chats when it has no `as`. */
export const STUDIO_CHAT_OWNER = "studio";

/** The chat handlers of a studio's agents, made on first use. */
export class StudioChats {
  readonly #handlers = new Map<string, ChatHandler>();

  constructor(
    private readonly options: {
      client: Client;
      agents: ReadonlyMap<string, Agent>;
      taskQueue: string;
      as?: string;
    },
  ) {}

  /** The chat handler of `agentName`; a 404 for a name the module does not have. */
  handlerOf(agentName: string): ChatHandler {
    const known = this.#handlers.get(agentName);
    if (known) return known;
    const agent = this.options.agents.get(agentName);
    if (!agent)
      throw new StudioRequestError(
        404,
        this.options.agents.size === 0
          ? "Chatting needs the agents module: start the studio with it (`durable-agent studio ./agents.ts`)."
          : `No agent ${JSON.stringify(agentName)} in the module (it has ${[...this.options.agents.keys()].join(", ")}).`,
      );
    const by = this.options.as ?? STUDIO_CHAT_OWNER;
    const handler = createChatHandler({
      agent,
      authorize: () => ({ by }),
      client: this.options.client,
      taskQueue: this.options.taskQueue,
      streamText: agent.options.modelExecution !== "local",
    });
    this.#handlers.set(agentName, handler);
    return handler;
  }
}
