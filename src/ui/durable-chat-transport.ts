import {
  APICallError,
  DefaultChatTransport,
  type ChatRequestOptions,
  type ChatTransport,
  type HttpChatTransportInitOptions,
  type UIMessage,
  type UIMessageChunk,
} from "ai";
import { DEFAULT_RECONNECT, delayBefore, sleep, type ReconnectOptions } from "./backoff.js";
import { ChatState, type ParkedAnswer } from "./chat-state.js";
import { streamUrl, withFlag } from "./chat-urls.js";
import { followStream } from "./follow-stream.js";
import { messageChunks, messageRestChunks } from "./message-chunks.js";
import { readNews } from "./read-news.js";

/** The options of {@link DurableChatTransport}: the AI SDK's HTTP transport options, and how it resumes and watches. */
export interface DurableChatTransportOptions<
  UI_MESSAGE extends UIMessage = UIMessage,
> extends HttpChatTransportInitOptions<UI_MESSAGE> {
  /** How a stream cut before its finish is resumed: attempts and backoff. Defaults: {@link DEFAULT_RECONNECT}. */
  reconnect?: ReconnectOptions;
  /**
   * How often {@link DurableChatTransport.watch} asks the resume route whether an answer started,
   * while none of the chat's streams is open. Default 2000 ms.
   */
  watchIntervalMs?: number;
  /** Gets the failures that have no stream to go in: a stop's `DELETE` that failed, a watcher refused. Default: `console.error`. */
  onError?: (error: Error) => void;
}

type ReconnectOptionsOf = Parameters<ChatTransport<UIMessage>["reconnectToStream"]>[0];

/** What `watch` tells of an answer that started elsewhere. */
export interface WatchedAnswer<UI_MESSAGE extends UIMessage = UIMessage> {
  /** The user message it answers, when it is a new message's answer (sent from another tab): the chat's history has it. */
  asked?: UI_MESSAGE;
}

/**
 * The AI SDK's `ChatTransport` for `createChatHandler`'s routes, made for chats that outlive a
 * connection: `useChat({ transport: new DurableChatTransport({ api: "/api/chat" }) })`.
 *
 * - A stream that ends before its `finish` (a cut network, a server restart) is resumed from
 *   `GET {api}/{chatId}/stream`, with backoff while the network is down; the resume replays the
 *   answer from its `start`, and what the consumer already has is dropped, so it sees every chunk once.
 *   An answer that ended during the cut is completed from the chat's history (read once).
 * - `useChat`'s `stop()` also calls `DELETE {api}/{chatId}/stream`, which stops the run (a dropped
 *   connection never does). A resume the transport makes itself, or one a newer resume replaced, is
 *   not a stop.
 * - {@link DurableChatTransport.watch} shows an answer that started elsewhere (after an approval
 *   made in another tab).
 * - {@link DurableChatTransport.loadMessages} reads the chat's durable history, for a reloaded page.
 */
export class DurableChatTransport<UI_MESSAGE extends UIMessage = UIMessage> extends DefaultChatTransport<UI_MESSAGE> {
  private readonly reconnect: Required<ReconnectOptions>;
  private readonly watchIntervalMs: number;
  private readonly reportError: (error: Error) => void;
  private readonly chats = new Map<string, ChatState>();

  constructor(options: DurableChatTransportOptions<UI_MESSAGE> = {}) {
    const { reconnect, watchIntervalMs = 2000, onError, ...http } = options;
    super({ ...http, resumeStreamIsReplay: true });
    this.reconnect = { ...DEFAULT_RECONNECT, ...reconnect };
    this.watchIntervalMs = watchIntervalMs;
    this.reportError = onError ?? ((error) => console.error(error));
  }

  /** Sends the chat's messages (`POST {api}`) and follows the answer, resuming it if the connection drops. */
  override async sendMessages(
    options: Parameters<ChatTransport<UI_MESSAGE>["sendMessages"]>[0],
  ): Promise<ReadableStream<UIMessageChunk>> {
    const chat = this.chat(options.chatId);
    const stop = this.stopOnAbort(options.chatId, options.abortSignal, options, () => false);
    chat.opened();
    let first: ReadableStream<UIMessageChunk>;
    try {
      first = await super.sendMessages(options);
    } catch (error) {
      chat.closed();
      throw error;
    }
    return this.follow(chat, { first, signal: options.abortSignal, request: options, resetsAtStart: false, stop });
  }

  /**
   * Resumes the chat's answer in flight (`GET {api}/{chatId}/stream`), or hands over the one a
   * watcher found; `null` when no answer is in flight (204).
   */
  override async reconnectToStream(options: ReconnectOptionsOf): Promise<ReadableStream<UIMessageChunk> | null> {
    const chat = this.chat(options.chatId);
    const call = ++chat.resumeCalls;
    const stop = this.stopOnAbort(options.chatId, options.abortSignal, options, () => chat.resumeCalls !== call);
    const parked = chat.takeParked();
    chat.opened();
    if (parked)
      return this.follow(chat, {
        ...parked,
        first: parked.rest,
        signal: options.abortSignal,
        request: options,
        resetsAtStart: true,
        stop,
      });
    let first: ReadableStream<UIMessageChunk> | null;
    try {
      first = await super.reconnectToStream(options);
    } catch (error) {
      chat.closed();
      throw error;
    }
    if (!first) {
      chat.closed();
      return null;
    }
    return this.follow(chat, { first, signal: options.abortSignal, request: options, resetsAtStart: true, stop });
  }

  /**
   * Watches a chat, so that an answer that starts elsewhere shows here: after an approval made in
   * another tab, or a message sent from one. While none of the chat's streams is open, it asks the
   * resume route every `watchIntervalMs`; when an answer holds something this consumer has not got,
   * it calls `onAnswer`, which is to call `useChat`'s `resumeStream()`, and the transport's next
   * `reconnectToStream` for the chat hands that answer over (the message so far, then what is new).
   * A chat that does not exist yet (404: its first message has not been sent) is watched until it
   * does; any other refusal (a 4xx) ends the watch and goes to `onError`. Returns the function
   * that ends it.
   * An answer to a message sent elsewhere comes with that message (`asked`, from the chat's
   * history): add it to the page's messages before resuming, so the answer follows its question.
   *
   * ```ts partial
   * const { resumeStream, setMessages } = useChat({ id, transport });
   * useEffect(() => transport.watch(id, ({ asked }) => {
   *   if (asked) setMessages((shown) => (shown.some((m) => m.id === asked.id) ? shown : [...shown, asked]));
   *   void resumeStream();
   * }), [id]);
   * ```
   */
  watch(chatId: string, onAnswer: (answer: WatchedAnswer<UI_MESSAGE>) => void): () => void {
    const watching = new AbortController();
    this.watchChat(chatId, onAnswer, watching.signal).catch((error: unknown) => {
      if (!watching.signal.aborted) this.reportError(asError(error));
    });
    return () => watching.abort();
  }

  /** The chat's durable history (`GET {api}/{chatId}/stream?messages`), as `useChat`'s initial `messages` after a reload. */
  async loadMessages(chatId: string, options: ChatRequestOptions = {}): Promise<UI_MESSAGE[]> {
    const request = await this.resumeRequest(chatId, options);
    const url = withFlag(request.url, "messages");
    const response = await (this.fetch ?? globalThis.fetch)(url, {
      headers: request.headers,
      credentials: request.credentials,
    });
    if (!response.ok) throw await apiError(response, url, "Failed to load the chat's messages.");
    return (await response.json()) as UI_MESSAGE[];
  }

  /** The consumer's message as the chat's history has it now, when it no longer waits for a decision there; else undefined. */
  private async settledAnswer(chat: ChatState, chatId: string, signal: AbortSignal): Promise<ParkedAnswer | undefined> {
    const message = (await this.loadMessages(chatId)).find((m) => m.id === chat.messageId);
    if (signal.aborted || !message) return undefined;
    if (message.parts.some((part) => "state" in part && part.state === "approval-requested")) return undefined;
    return {
      prefix: messageChunks(message as UIMessage),
      known: [],
      rest: new ReadableStream({ start: (c) => c.close() }),
    };
  }

  /**
   * The chunks that end the consumer's message as the chat's history has it, read once (the answer
   * ended while a cut stream's connection was down): what the consumer has of the message's last
   * step is replaced by the history's, and the steps after it follow. Undefined when the history
   * does not have the message.
   */
  private async restOfAnswer(
    chat: ChatState,
    chatId: string,
    request: ChatRequestOptions,
    signal: AbortSignal,
  ): Promise<UIMessageChunk[] | undefined> {
    const messageId = chat.messageId;
    const message = (await this.loadMessages(chatId, request)).find((m) => m.id === messageId);
    if (signal.aborted || !message) return undefined;
    const steps = chat.ledger.filter((chunk) => chunk.type === "start-step").length;
    return messageRestChunks(message as UIMessage, steps);
  }

  private chat(chatId: string): ChatState {
    let chat = this.chats.get(chatId);
    if (!chat) this.chats.set(chatId, (chat = new ChatState()));
    return chat;
  }

  private follow(
    chat: ChatState,
    options: {
      first: ReadableStream<UIMessageChunk>;
      prefix?: UIMessageChunk[];
      known?: UIMessageChunk[];
      signal: AbortSignal | undefined;
      request: ReconnectOptionsOf;
      resetsAtStart: boolean;
      stop: { completed: boolean };
    },
  ): ReadableStream<UIMessageChunk> {
    const { chatId, headers, body, metadata } = options.request;
    let started = false;
    return followStream({
      first: options.first,
      prefix: options.prefix,
      known: options.known,
      signal: options.signal,
      reconnect: this.reconnect,
      resume: (abortSignal) => super.reconnectToStream({ chatId, abortSignal, headers, body, metadata }),
      settle: (signal) => this.restOfAnswer(chat, chatId, { headers, body, metadata }, signal),
      onChunk: (chunk) => {
        chat.record(chunk, options.resetsAtStart && !started);
        if (chunk.type === "start") started = true;
      },
      onEnd: (how) => {
        if (how === "complete") options.stop.completed = true;
        chat.closed();
      },
    });
  }

  /**
   * Calls `DELETE {api}/{chatId}/stream` when the consumer aborts `signal` (`useChat`'s `stop()`), unless
   * the answer was complete by then or `replaced()` says a newer request took over. The check waits
   * a task, as `useChat` aborts a resume it replaces just before it makes the new one.
   */
  private stopOnAbort(
    chatId: string,
    signal: AbortSignal | undefined,
    request: ChatRequestOptions,
    replaced: () => boolean,
  ): { completed: boolean } {
    const state = { completed: false };
    signal?.addEventListener(
      "abort",
      () =>
        setTimeout(() => {
          if (!state.completed && !replaced()) void this.stopRun(chatId, request);
        }, 0),
      { once: true },
    );
    return state;
  }

  private async stopRun(chatId: string, options: ChatRequestOptions): Promise<void> {
    try {
      const request = await this.resumeRequest(chatId, options);
      const response = await (this.fetch ?? globalThis.fetch)(request.url, {
        method: "DELETE",
        headers: request.headers,
        credentials: request.credentials,
      });
      if (!response.ok) throw await apiError(response, request.url, "Failed to stop the chat's answer.");
    } catch (error) {
      this.reportError(asError(error));
    }
  }

  /** The resume route's URL, headers and credentials for a chat, through `prepareReconnectToStreamRequest` as a resume gets them. */
  private async resumeRequest(chatId: string, options: ChatRequestOptions) {
    const body = { ...(await resolveValue(this.body)), ...options.body };
    const headers = { ...plainHeaders(await resolveValue(this.headers)), ...plainHeaders(options.headers) };
    const credentials = await resolveValue(this.credentials);
    const prepared = await this.prepareReconnectToStreamRequest?.({
      api: this.api,
      id: chatId,
      body,
      headers,
      credentials,
      requestMetadata: options.metadata,
    });
    return {
      url: prepared?.api ?? streamUrl(this.api, chatId),
      headers: prepared?.headers !== undefined ? plainHeaders(prepared.headers) : headers,
      credentials: prepared?.credentials ?? credentials,
    };
  }

  private async watchChat(
    chatId: string,
    onAnswer: (answer: WatchedAnswer<UI_MESSAGE>) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const chat = this.chat(chatId);
    let failures = 0;
    /** The ledger's last chunk when the watcher last looked the message up in the history. */
    let lookedUp: UIMessageChunk | undefined;
    while (!signal.aborted) {
      await chat.idle(signal);
      if (signal.aborted) return;
      // The request is the watcher's until it finds news; then its stream is the chat's, and unwatching leaves it be.
      const request = new AbortController();
      const unwatch = () => request.abort();
      signal.addEventListener("abort", unwatch, { once: true });
      chat.watcherRequest = request;
      let news: ParkedAnswer | undefined;
      let asked: UI_MESSAGE | undefined;
      try {
        const stream = await super.reconnectToStream({ chatId, abortSignal: request.signal });
        failures = 0;
        news = stream ? await readNews(chat, stream) : undefined;
        // A new message's answer (sent elsewhere): its question is the history's last message (the answer in flight is not in it yet).
        const start = news?.prefix[0];
        if (start?.type === "start" && start.messageId !== chat.messageId)
          asked = (await this.loadMessages(chatId)).at(-1);
        // Nothing in flight, but the consumer's message ended at an approval request: the answer went on and ended
        // between two looks (decided elsewhere). Hand over the message as the history has it.
        if (!stream && endedAtApproval(chat) && lookedUp !== chat.ledger.at(-1)) {
          lookedUp = chat.ledger.at(-1);
          news = await this.settledAnswer(chat, chatId, request.signal);
        }
      } catch (error) {
        if (request.signal.aborted) continue;
        const status = APICallError.isInstance(error) ? error.statusCode : undefined;
        // A new chat's routes answer 404 until its first message: the watcher waits for it to exist.
        if (status !== undefined && status < 500 && status !== 404) throw error;
        if (status !== 404) failures++;
      } finally {
        signal.removeEventListener("abort", unwatch);
        if (chat.watcherRequest === request) chat.watcherRequest = undefined;
      }
      if (news && !request.signal.aborted) {
        chat.park(news);
        onAnswer(asked?.role === "user" ? { asked } : {});
        continue;
      }
      if (news) void news.rest.cancel().catch(() => undefined);
      const wait = failures > 0 ? delayBefore(failures + 1, this.reconnect) : this.watchIntervalMs;
      await sleep(wait, signal).catch(() => undefined);
    }
  }
}

/** Whether the consumer's copy of the chat's message ends waiting for a decision: an approval request with no response or outcome after it. */
function endedAtApproval(chat: ChatState): boolean {
  const waiting = new Map<string, string>(); // approval id → tool call id
  for (const chunk of chat.ledger) {
    if (chunk.type === "tool-approval-request") waiting.set(chunk.approvalId, chunk.toolCallId);
    else if (chunk.type === "tool-approval-response") waiting.delete(chunk.approvalId);
    else if ("toolCallId" in chunk && chunk.type.startsWith("tool-output"))
      for (const [approvalId, callId] of waiting) if (callId === chunk.toolCallId) waiting.delete(approvalId);
  }
  return waiting.size > 0;
}

async function resolveValue<T>(value: T | PromiseLike<T> | (() => T | PromiseLike<T>)): Promise<T> {
  return typeof value === "function" ? await (value as () => T | PromiseLike<T>)() : await value;
}

function plainHeaders(headers: HeadersInit | undefined): Record<string, string> {
  const plain: Record<string, string> = {};
  if (headers !== undefined) new Headers(headers).forEach((value, name) => (plain[name] = value));
  return plain;
}

async function apiError(response: Response, url: string, fallback: string): Promise<APICallError> {
  const responseBody = await response.text();
  return new APICallError({
    message: responseBody || fallback,
    url,
    requestBodyValues: undefined,
    statusCode: response.status,
    responseBody,
  });
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
