/** An MCP server's tools for an agent: `ai.mcp()` returns one, and it goes in the agent's `tools`. */
import type { McpToolDefinition } from "../core/mcp-tools.js";
import { AgentOptionsError } from "../errors.js";
import { McpConnection } from "./mcp-connection.js";
import { resolveMcpOptions, type McpOptions, type ResolvedMcpOptions } from "./mcp-options.js";

/** Names the model API accepts for a function tool. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** An MCP server's tools, for an agent's `tools`. Create with `ai.mcp()`. */
export class McpToolset {
  /** The toolset's name: tool records carry it as `source: "mcp:<name>"`. */
  readonly name: string;
  readonly #options: ResolvedMcpOptions;
  readonly #connection: McpConnection;
  #cached: { at: number; tools: McpToolDefinition[] } | undefined;

  constructor(options: McpOptions) {
    this.#options = resolveMcpOptions(options);
    this.name = this.#options.name;
    this.#connection = new McpConnection(this.#options);
  }

  /** The server's URL or command (no headers or env). */
  get target(): string {
    return this.#connection.target;
  }

  /** The worker-side connection to the server. @internal */
  get connection(): McpConnection {
    return this.#connection;
  }

  /**
   * The tools this toolset exposes, as the model will see them: filtered by `tools`, named with
   * `prefix`. Reused for `cacheToolsFor` after listing.
   */
  async listTools(now = Date.now()): Promise<McpToolDefinition[]> {
    const cached = this.#cached;
    if (cached && now - cached.at < this.#options.cacheToolsForMs) return cached.tools;
    const listed = await this.#connection.listTools();
    const tools = this.#select(listed).map((tool): McpToolDefinition => {
      const name = this.#options.prefix ? `${this.name}__${tool.name}` : tool.name;
      if (!TOOL_NAME.test(name)) {
        throw new AgentOptionsError(
          `mcp.tools`,
          `MCP server "${this.name}" lists a tool named ${JSON.stringify(name)}, which the model API does not ` +
            `accept (1-64 letters, digits, "_" or "-"); leave it out with the \`tools\` option`,
        );
      }
      return {
        name,
        server: this.name,
        tool: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        inputSchema: tool.inputSchema as Record<string, unknown>,
      };
    });
    this.#cached = { at: now, tools };
    return tools;
  }

  /** Whether a call of the server's tool `tool` waits for a person's approval. */
  async needsApproval(tool: McpToolDefinition, input: unknown): Promise<boolean> {
    const option = this.#options.needsApproval;
    if (typeof option === "boolean") return option;
    if (Array.isArray(option)) return option.includes(tool.tool) || option.includes(tool.name);
    return (await option({ tool: tool.tool, input })) === true;
  }

  /** How long a call that needs approval waits, in milliseconds; undefined: no limit. */
  get approvalTimeoutMs(): number | undefined {
    return this.#options.approvalTimeoutMs;
  }

  /** Closes the worker's connection (stops a stdio server). The next call connects again. */
  close(): Promise<void> {
    return this.#connection.close();
  }

  #select<T extends { name: string; description?: string; inputSchema: unknown }>(listed: T[]): T[] {
    const filter = this.#options.tools;
    if (filter === undefined) return listed;
    if (typeof filter === "function")
      return listed.filter((tool) =>
        filter({
          name: tool.name,
          ...(tool.description ? { description: tool.description } : {}),
          inputSchema: tool.inputSchema as Record<string, unknown>,
        }),
      );
    const missing = filter.filter((name) => !listed.some((tool) => tool.name === name));
    if (missing.length) {
      throw new AgentOptionsError(
        "mcp.tools",
        `MCP server "${this.name}" has no tool ${missing.map((n) => `"${n}"`).join(", ")} (it lists ${listed.map((t) => `"${t.name}"`).join(", ") || "none"})`,
      );
    }
    return listed.filter((tool) => filter.includes(tool.name));
  }
}
