/** Rows as Markdown, for bench-results and the docs. */

/** Rows as a Markdown table (columns: every key of any row, in order of first appearance). */
export function markdownTable(rows: Record<string, string | number>[]): string {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cell = (value: string | number | undefined) => (value === undefined ? "" : String(value).replace(/\|/g, "\\|"));
  return [
    `| ${columns.map((c) => cell(c)).join(" | ")} |`,
    `| ${columns.map(() => "---").join(" | ")} |`,
    ...rows.map((row) => `| ${columns.map((c) => cell(row[c])).join(" | ")} |`),
  ].join("\n");
}
