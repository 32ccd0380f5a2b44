/** A table for a terminal: the header and the cells in columns padded to their widest text, two spaces apart. */
export function textTable(header: string[], cells: string[][]): string[] {
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((cell) => cell[i]!.length)));
  return [header, ...cells].map((cell) =>
    cell
      .map((text, i) => text.padEnd(widths[i]!))
      .join("  ")
      .trimEnd(),
  );
}
