/**
 * Three-way merges of a working memory document: an update the model made against the version it
 * saw (`base`), applied over the version stored meanwhile by another session (`theirs`), so neither
 * update is lost. Markdown is merged by lines, JSON objects key by key, arrays by items.
 */

const equal = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `ours` (made from `base`) merged into `theirs` (stored since `base`). */
export function mergeWorkingMemory(base: unknown, ours: unknown, theirs: unknown): unknown {
  if (typeof ours === "string" && typeof theirs === "string")
    return mergeLines(typeof base === "string" ? base : "", ours, theirs);
  return mergeValues(base, ours, theirs);
}

function mergeValues(base: unknown, ours: unknown, theirs: unknown): unknown {
  if (equal(ours, base)) return theirs;
  if (equal(theirs, base) || equal(ours, theirs)) return ours;
  if (isObject(ours) && isObject(theirs)) {
    const from = isObject(base) ? base : {};
    const merged: Record<string, unknown> = {};
    for (const key of new Set([...Object.keys(theirs), ...Object.keys(ours)])) {
      const value = mergeValues(from[key], ours[key], theirs[key]);
      if (value !== undefined) merged[key] = value;
    }
    return merged;
  }
  if (Array.isArray(ours) && Array.isArray(theirs)) {
    const from = Array.isArray(base) ? base : [];
    const has = (list: unknown[], item: unknown) => list.some((other) => equal(other, item));
    const removed = from.filter((item) => !has(ours, item));
    const kept = theirs.filter((item) => !has(removed, item));
    return [...kept, ...ours.filter((item) => !has(from, item) && !has(theirs, item))];
  }
  return ours; // both changed one value: the later update wins
}

/** Lines `ours` removed from `base` go; lines it added go in after the line they followed in `ours`. */
function mergeLines(base: string, ours: string, theirs: string): string {
  if (ours === base) return theirs;
  if (theirs === base) return ours;
  const baseLines = new Set(base.split("\n"));
  const ourLines = ours.split("\n");
  const ourSet = new Set(ourLines);
  const merged = theirs.split("\n").filter((line) => !(baseLines.has(line) && !ourSet.has(line)) || line === "");
  const present = new Set(merged);
  let anchor = -1; // where in `merged` the last line of `ours` seen there sits
  for (const line of ourLines) {
    const at = merged.indexOf(line, anchor + 1);
    if (at >= 0) {
      anchor = at;
      continue;
    }
    if (baseLines.has(line)) {
      // A line of the base that the other update replaced: this update's next lines go after the replacement.
      while (anchor + 1 < merged.length && !ourSet.has(merged[anchor + 1]!) && !baseLines.has(merged[anchor + 1]!))
        anchor++;
      continue;
    }
    if (present.has(line)) continue;
    merged.splice(anchor + 1, 0, line);
    present.add(line);
    anchor += 1;
  }
  return merged.join("\n");
}
