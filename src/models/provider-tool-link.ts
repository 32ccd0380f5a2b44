/** A provider-defined tool of the AI SDK, as `anthropic.tools.webSearch_20250305(...)` returns it. */
export interface ProviderToolLink {
  /** The provider's tool id, e.g. `anthropic.web_search_20250305`. */
  readonly id: string;
  /** The tool's arguments, e.g. `{ maxUses: 3 }`. */
  readonly args: Record<string, unknown>;
}
