/**
 * Unknown option keys: a typo such as `actWhenAsk` is an `AgentOptionsError` naming the key and
 * the closest known one, instead of being ignored. Each options type lists its keys once, beside
 * its interface, as `{ key: true, ... } satisfies Record<keyof Options, true>`, so a new option
 * that is not added there fails the typecheck.
 */
import { closest, distance } from "fastest-levenshtein";
import { AgentOptionsError } from "../errors.js";

/**
 * Names other libraries give a setting we name otherwise: the AI SDK's `maxOutputTokens` is our
 * `maxTokens`, its `stopSequences` our `stop`. Named in the error when the options know the setting.
 */
const SYNONYMS: Readonly<Record<string, string>> = { maxOutputTokens: "maxTokens", stopSequences: "stop" };

/** The keys an options type knows, as a record (see the module comment). */
export type KnownKeys = Readonly<Record<string, true>>;

/**
 * Throws `AgentOptionsError` for the first key of `value` that `known` lacks. `call` names the
 * function (`ai.agent()`), `path` the nested object (`actWhenAsked`).
 */
export function checkKnownKeys(value: object, known: KnownKeys, call: string, path?: string): void {
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(known, key)) continue;
    const field = path ? `${path}.${key}` : key;
    const synonym = Object.hasOwn(SYNONYMS, key) && Object.hasOwn(known, SYNONYMS[key]!) ? SYNONYMS[key] : undefined;
    const suggestion = synonym ?? closestKey(key, Object.keys(known));
    const where = path ? `\`${path}\` of ${call}` : call;
    throw new AgentOptionsError(
      field,
      synonym
        ? `${where} has no option \`${key}\`; did you mean \`${synonym}\`? (the AI SDK's \`${key}\` is \`${synonym}\` here)`
        : suggestion
          ? `${where} has no option \`${key}\`; did you mean \`${suggestion}\`?`
          : `${where} has no option \`${key}\` (its options are ${Object.keys(known)
              .map((k) => `\`${k}\``)
              .join(", ")})`,
      suggestion,
    );
  }
}

/**
 * The known key nearest to `key` (case-insensitive edit distance), if it is near enough to be a
 * typo: 2 edits, 3 for keys of 5+ characters, or a third of the key.
 */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const lower = key.toLowerCase();
  const byLower = new Map(known.map((k) => [k.toLowerCase(), k]));
  const nearest = closest(lower, [...byLower.keys()]);
  const edits = distance(lower, nearest);
  const near = edits <= 2 || (edits <= 3 && key.length >= 5) || edits <= Math.floor(key.length / 3);
  return near ? byLower.get(nearest) : undefined;
}
