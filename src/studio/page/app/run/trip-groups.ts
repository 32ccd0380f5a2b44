/** A conversation's items grouped by the trip they belong to, for marking re-prompts and backstops on their trip. */
import type { ConversationItem, SessionMessageItem } from "../../../api-types.js";

/** The items of one trip (trip 0: before the first model call, e.g. the user's message). */
export interface TripGroup {
  trip: number;
  /** The session message this group starts, for a session's conversation. */
  message?: SessionMessageItem;
  items: ConversationItem[];
}

/** Groups in order: an item with a trip starts that trip's group; items without one stay in the group before them. */
export function groupByTrip(items: ConversationItem[]): TripGroup[] {
  const groups: TripGroup[] = [];
  let current: TripGroup | undefined;
  for (const item of items) {
    if (item.type === "session-message") {
      current = { trip: 0, message: item, items: [] };
      groups.push(current);
      continue;
    }
    const trip = "trip" in item ? item.trip : undefined;
    if (!current || (trip !== undefined && trip !== current.trip)) {
      current = { trip: trip ?? 0, items: [] };
      groups.push(current);
    }
    current.items.push(item);
  }
  return groups;
}
