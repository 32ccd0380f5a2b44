/**
 * Search attributes that let runs be filtered in the Temporal UI and visibility queries. They must
 * be registered on the server (the dev server helper does it; see the README for production), so
 * workers set them only when created with `searchAttributes: true`. Workflow-safe.
 */
import { defineSearchAttributeKey, SearchAttributeType } from "@temporalio/common";

export const SEARCH_ATTRIBUTES = {
  agent: defineSearchAttributeKey("DurableAgentName", SearchAttributeType.KEYWORD),
  stopReason: defineSearchAttributeKey("DurableAgentStopReason", SearchAttributeType.KEYWORD),
  trips: defineSearchAttributeKey("DurableAgentTrips", SearchAttributeType.INT),
  reprompts: defineSearchAttributeKey("DurableAgentReprompts", SearchAttributeType.INT),
  refusals: defineSearchAttributeKey("DurableAgentRefusals", SearchAttributeType.INT),
} as const;
