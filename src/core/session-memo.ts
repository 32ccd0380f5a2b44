/**
 * What a session keeps in its memo, for lists read from Temporal's visibility alone (a chat's
 * list, the studio): its owner (recorded at its start), the first words of its first message,
 * and when its last message came. Workflow-safe.
 */
import type { ContentPart } from "./types.js";
import { textOf } from "./types.js";

/** The memo key a session's owner is recorded under. */
export const SESSION_OWNER_MEMO = "durableAgentChatOwner";
/** The memo key of the first words of a session's first message. */
export const SESSION_TITLE_MEMO = "durableAgentChatTitle";
/** The memo key of when a session's last message came (ISO 8601). */
export const SESSION_UPDATED_MEMO = "durableAgentChatUpdated";

/** How many characters of a first message a session's title keeps. */
const TITLE_CHARS = 80;

/** The first words of a message: its text on one line, cut at a word near `TITLE_CHARS`. */
export function firstWords(message: string | ContentPart[]): string {
  const text = textOf(message).replace(/\s+/g, " ").trim();
  if (text.length <= TITLE_CHARS) return text;
  const cut = text.slice(0, TITLE_CHARS);
  const space = cut.lastIndexOf(" ");
  return `${space > TITLE_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}
