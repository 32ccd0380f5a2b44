/**
 * Search attributes that let runs be filtered in the Temporal UI and visibility queries. They must
 * be registered on the server (the dev server helper does it; see docs/operating-runs.md for production), so
 * workers set them only when created with `searchAttributes: true`. Workflow-safe.
 */
// The module alone, not the package's index (which loads Nexus and more): the root imports this file.
import { defineSearchAttributeKey, SearchAttributeType } from "@temporalio/common/lib/search-attributes.js";

export const SEARCH_ATTRIBUTES = {
  agent: defineSearchAttributeKey("DurableAgentName", SearchAttributeType.KEYWORD),
  stopReason: defineSearchAttributeKey("DurableAgentStopReason", SearchAttributeType.KEYWORD),
  trips: defineSearchAttributeKey("DurableAgentTrips", SearchAttributeType.INT),
  reprompts: defineSearchAttributeKey("DurableAgentReprompts", SearchAttributeType.INT),
  refusals: defineSearchAttributeKey("DurableAgentRefusals", SearchAttributeType.INT),
  /**
   * Total tokens used so far, updated after each model call. A Double holding whole numbers: SQL
   * visibility stores (the dev server's SQLite, PostgreSQL, MySQL) allow three custom Int
   * attributes per namespace, and the three above use them.
   */
  tokens: defineSearchAttributeKey("DurableAgentTokens", SearchAttributeType.DOUBLE),
  /** `agent.version` of the definition serving the run (updated when it changes between trips). */
  version: defineSearchAttributeKey("DurableAgentVersion", SearchAttributeType.KEYWORD),
  /** On a fork (`ai.fork`): the workflow id of the recorded run it went on from. */
  forkedFrom: defineSearchAttributeKey("DurableAgentForkedFrom", SearchAttributeType.KEYWORD),
} as const;
