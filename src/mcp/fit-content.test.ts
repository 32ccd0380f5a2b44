import { describe, expect, it } from "vitest";
import { fitMcpOutput, type McpToolOutput } from "./fit-content.js";

const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe("fitMcpOutput", () => {
  it("keeps an output that fits as it is", () => {
    const output: McpToolOutput = {
      content: [
        { type: "text", text: "hi" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
      structuredContent: { a: 1 },
    };
    expect(fitMcpOutput(output, 1024)).toBe(output);
  });

  it("keeps parts in order while they fit and names the parts it leaves out", () => {
    const output: McpToolOutput = {
      content: [
        { type: "text", text: "chart:" },
        { type: "image", data: "A".repeat(5000), mimeType: "image/png" },
        { type: "resource", resource: { uri: "plan://x", text: "y" } },
      ],
    };
    const fitted = fitMcpOutput(output, 1000);
    expect(fitted.content).toEqual([
      { type: "text", text: "chart:" },
      {
        type: "text",
        text: expect.stringMatching(
          /^\[durable-agent: image image\/png, 5\d\d\d bytes and 1 more part\(s\) omitted, over limits\.toolOutputBytes \(1000\)\]$/,
        ),
      },
    ]);
    expect(size(fitted)).toBeLessThanOrEqual(1000);
  });

  it("cuts a long text part (escaped characters included) with a marker, and drops structured content first", () => {
    const output: McpToolOutput = {
      content: [{ type: "text", text: '"\n'.repeat(4000) + "é".repeat(1000) }],
      structuredContent: { rows: Array(500).fill("row") },
    };
    for (const limit of [256, 700, 3000]) {
      const fitted = fitMcpOutput(output, limit);
      expect(size(fitted), String(limit)).toBeLessThanOrEqual(limit);
      expect(fitted.structuredContent).toBeUndefined();
      expect(fitted.content[0]).toMatchObject({
        type: "text",
        text: expect.stringMatching(/^\[durable-agent: structured content of \d+ bytes omitted/),
      });
      const last = fitted.content.at(-1)!;
      if (limit > 256)
        expect(last.text).toMatch(
          /…\[truncated by durable-agent: a text part of \d+ bytes, over limits\.toolOutputBytes \(\d+\)\]$/,
        );
    }
  });
});
