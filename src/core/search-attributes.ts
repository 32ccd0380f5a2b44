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
  /**
   * The run's `usage.costUsd` so far, updated with DurableAgentTokens after each model call when
   * the model has `pricing` (absent otherwise). The second of the three custom Double attributes
   * SQL visibility stores allow per namespace (DurableAgentTokens is the first).
   */
  costUsd: defineSearchAttributeKey("DurableAgentCostUsd", SearchAttributeType.DOUBLE),
  /**
   * True once a backstop of the run has run (absent until then). The first of the three custom
   * Bool attributes SQL visibility stores allow per namespace.
   */
  backstopRan: defineSearchAttributeKey("DurableAgentBackstopRan", SearchAttributeType.BOOL),
} as const;
