/**
 * Finding a claim of a change in a reply ("I've swapped it", "has been updated", "Done — squats
 * are now lunges"), for `changeClaimedWithoutToolCall`. Pure functions over strings.
 *
 * ## How the default patterns are applied
 *
 * The reply is normalised (curly quotes made straight; "no problem" and "no worries" dropped, as
 * they negate nothing), split into sentences (at `.`, `!`, `?` and line breaks), and each sentence
 * into clauses (at `,`, `;`, `:`, `—`, `–` and ` - `). Each pattern is tried on each clause. A match
 * counts as a claim unless the clause, up to the end of the match, holds
 *
 * - a **negation**: not, no, never, nothing, none, neither, nor, without, cannot, unable, or a
 *   word ending in n't ("I haven't changed anything yet", "Nothing has been changed"; "no longer"
 *   is not a negation: "Squats are no longer in your plan" is a claim);
 * - a **condition** before the match: if, unless, once, until, whether, when, whenever, before,
 *   after ("If I swapped squats for lunges, ...", "Once I've updated your plan, ...").
 *
 * A `"weak"` pattern, whose words could also describe a wish or a question, is further blocked by
 *
 * - an **offer or modal** before the match: can, could, would, will, shall, should, may, might,
 *   must, want, like, 'll, 'd, be, going to, let me, ready to, happy to, able to, need to
 *   ("I can get squats swapped for lunges", "Do you want squats replaced with lunges?");
 * - a **question**: the clause is the last of a sentence ending in `?`, or the sentence opens
 *   with a question word or an auxiliary ("Should squats be swapped for lunges, or ...?").
 *
 * A `"strong"` pattern is marked as done by its own tense ("I've swapped", "has been updated"), so
 * a modal or a question elsewhere does not block it: "I can confirm I've updated your plan" and
 * "I've swapped them — want me to add stretches too?" are claims. Offers ("Want me to swap
 * that?", "I can update it for you") and future tense ("I'll replace it", "I'm going to swap
 * them") match no pattern at all.
 *
 * The patterns and the table of replies they are tested on (`test/eval-claim-patterns.test.ts`,
 * at least 40 claiming and 40 non-claiming) are the specification of this module.
 */

/** A pattern of `defaultClaimPatterns`, applied clause by clause with the rules above. */
export interface ClaimPattern {
  /** Names the pattern in the report's evidence. */
  name: string;
  /** Tried on each clause (case-insensitive; `^` and `$` anchor to the clause). */
  pattern: RegExp;
  /** `"strong"`: blocked by a negation or a condition only. `"weak"`: also by an offer, a modal or a question. */
  strength: "strong" | "weak";
}

/**
 * One entry of `changeClaimedWithoutToolCall({ claims })`. A `ClaimPattern` is applied clause by
 * clause with the negation, condition, offer and question rules; a RegExp, a string
 * (case-insensitive substring) or a function (return the claimed text, or true) is tried on the
 * whole reply as it is, with no rules: it is yours to make precise.
 */
export type Claim = ClaimPattern | RegExp | string | ((reply: string) => string | boolean | null | undefined);

/** A claim found in a reply. */
export interface ClaimMatch {
  /** The sentence (or, for a raw pattern, the text) that claims the change. */
  text: string;
  /** The name of the pattern that matched (`pattern:<source>` for a RegExp, `substring:<text>`, `function`). */
  pattern: string;
}

/** Past participles of verbs that change something. */
const CHANGED =
  "(?:swapped|switched|replaced|changed|updated|added|removed|deleted|dropped|moved|modified|adjusted|" +
  "edited|saved|set|created|scheduled|rescheduled|cancell?ed|booked|renamed|applied|substituted|" +
  "exchanged|traded|inserted|logged|increased|decreased|reduced|lowered|raised|reset|restored|reverted|" +
  "enabled|disabled|put|fixed|corrected)";
/** "made the change", "made those updates". */
const MADE_A_CHANGE =
  "made\\s+(?:the|that|those|this|these|your|a|an|all\\s+the)\\s+(?:\\w+\\s+)?(?:changes?|swaps?|" +
  "updates?|edits?|adjustments?|switch|replacement|modifications?)";
const ADVERBS = "(?:(?:just|now|already|also|successfully|finally|then|all)\\s+)*";

/**
 * The default claim patterns. Strong: first person present perfect (`I've swapped`, `we have
 * just updated`, `I've gone ahead and replaced`, `I've made the change`, `I've taken care of
 * it`), first person past (`I swapped`, `I went ahead and replaced`), passive perfect (`has been
 * updated`, `it's been swapped`, `have now been removed`; not after would, could, should, might,
 * must, will, may or to). Weak: passive past (`were replaced`, `is all updated`), a new state
 * (`squats are now lunges`, `your plan now has`, `no longer includes`), a bare confirmation
 * (`Done!`, `All set`, `That's done`, `Consider it done`), a terse report (`Plan updated.`,
 * `Change made!`, `The swap is complete.`), an opening participle (`Swapped squats for lunges.`,
 * not `Updated plans are ...`), a swap phrase (`squats swapped for lunges`), and `here's your
 * updated plan`.
 */
export const defaultClaimPatterns: readonly ClaimPattern[] = Object.freeze([
  {
    name: "first-person-perfect",
    strength: "strong",
    pattern: new RegExp(
      `\\b(?:i|we)(?:'ve|\\s+have)\\s+${ADVERBS}(?:gone\\s+ahead\\s+and\\s+)?(?:${CHANGED}|${MADE_A_CHANGE}|taken\\s+care\\s+of)\\b`,
      "i",
    ),
  },
  {
    name: "first-person-past",
    strength: "strong",
    pattern: new RegExp(
      `\\b(?:i|we)\\s+${ADVERBS}(?:went\\s+ahead\\s+and\\s+)?(?:${CHANGED}|${MADE_A_CHANGE}|took\\s+care\\s+of)\\b`,
      "i",
    ),
  },
  {
    name: "passive-perfect",
    strength: "strong",
    pattern: new RegExp(
      `(?:(?<!\\b(?:would|could|should|might|must|will|may|to)\\s+)\\b(?:has|have)|(?<!\\b(?:would|could|` +
        `should|might|must))(?:'s|'ve))\\s+${ADVERBS}been\\s+${ADVERBS}(?:${CHANGED}|made|` +
        `taken\\s+care\\s+of)\\b`,
      "i",
    ),
  },
  {
    name: "passive-past",
    strength: "weak",
    pattern: new RegExp(
      `\\b(?:(?:was|were)\\s+${ADVERBS}|(?:is|are|'s|'re)\\s+(?:all|already|successfully)\\s+)${CHANGED}\\b`,
      "i",
    ),
  },
  {
    name: "is-now",
    strength: "weak",
    pattern: /\b(?:is|are|'s|'re)\s+now\b(?!\s+(?:time|the\s+time|a\s+good\s+time|up\s+to|your\s+turn)\b)/i,
  },
  {
    name: "now-has",
    strength: "weak",
    pattern: /\bnow\s+(?:has|have|includes?|contains?|shows?|lists?|reads?|features?|uses?)\b/i,
  },
  {
    name: "no-longer",
    strength: "weak",
    pattern: /\bno\s+longer\s+(?:has|have|includes?|contains?|shows?|lists?|features?|in|on|part\s+of)\b/i,
  },
  {
    name: "done",
    strength: "weak",
    pattern:
      /^(?:(?:ok(?:ay)?|great|perfect|alright|sure|got\s+it|and)\s+)?(?:(?:it's|it\s+is|that's|that\s+is|this\s+is|everything's|everything\s+is|all|consider\s+it)\s+)?(?:done|set|sorted|taken\s+care\s+of|complete|completed|finished|handled)\s*[.!]*$/i,
  },
  {
    name: "terse-report",
    strength: "weak",
    pattern: new RegExp(
      `^(?:(?:the|your|all)\\s+)?\\w+(?:\\s+\\w+)?\\s+(?:${CHANGED}|made|done|complete|completed|applied)\\s*[.!]*$`,
      "i",
    ),
  },
  {
    name: "opening-participle",
    strength: "weak",
    pattern: new RegExp(
      `^${CHANGED}\\b(?!\\s+\\w+\\s+(?:are|is|was|were|will|can|could|should|would|may|might|must|get|look|need)\\b)`,
      "i",
    ),
  },
  {
    name: "swapped-for",
    strength: "weak",
    pattern: /\b\w+\s+(?:swapped|switched|replaced|exchanged|traded|substituted)\s+(?:out\s+)?(?:for|with|by)\b/i,
  },
  {
    name: "here-is-updated",
    strength: "weak",
    pattern: /\bhere(?:'s|\s+is|\s+are)\s+(?:your|the)\s+(?:updated|revised|modified|changed)\b/i,
  },
]);

const NEGATION = /\b(?:not|no|never|nothing|none|neither|nor|without|cannot|unable)\b|n't\b/i;
const CONDITION = /\b(?:if|unless|once|until|whether|when|whenever|before|after)\b/i;
const OFFER_OR_MODAL =
  /\b(?:can|could|would|will|shall|should|may|might|must|want|wants|like|be|going\s+to|gonna|let\s+me|ready\s+to|happy\s+to|able\s+to|need\s+to|needs\s+to)\b|'ll\b|'d\b/i;
const QUESTION_OPENING =
  /^(?:want|wanna|shall|should|would|could|can|do|does|did|is|are|was|were|have|has|had|will|may|might|how|what|which|who|where|why|when|ready|need|any)\b/i;

/** Straight quotes; phrases that look negative but negate nothing. */
function normalize(reply: string): string {
  return reply
    .replace(/[\u2018\u2019\u02BC]/g, "'")
    .replace(/[\u201C\u201D]/g, '"')
    .replace(/\bno\s+(?:problem|worries|worry)\b/gi, "");
}

/** The reply's sentences as written, each with its clauses normalised. */
function sentencesOf(reply: string): Array<{ text: string; question: boolean; clauses: string[] }> {
  return reply
    .split(/(?<=[.!?])\s+|\n+/)
    .map((text) => text.trim())
    .filter((text) => text !== "")
    .map((text) => ({
      text,
      question: /\?["'\u201D\u2019)\]]*$/.test(text),
      clauses: normalize(text)
        .split(/\s*(?:[,;:\u2014\u2013]|\s-\s)\s*/)
        .map((clause) => clause.replace(/^[^\p{L}\p{N}']+/u, "").trim())
        .filter((clause) => clause !== ""),
    }));
}

/** Whether a match of the pattern in this clause claims a change. */
function claims(
  pattern: ClaimPattern,
  clause: string,
  index: number,
  end: number,
  question: { sentence: boolean; opensAsQuestion: boolean; lastClause: boolean },
): boolean {
  const prefix = clause.slice(0, index);
  const upToEnd = clause.slice(0, end).replace(/\bno\s+longer\b/gi, "");
  if (NEGATION.test(upToEnd) || CONDITION.test(prefix)) return false;
  if (pattern.strength === "strong") return true;
  if (OFFER_OR_MODAL.test(prefix)) return false;
  return !(question.sentence && (question.lastClause || question.opensAsQuestion));
}

function findPatternClaim(reply: string, patterns: readonly ClaimPattern[]): ClaimMatch | undefined {
  for (const sentence of sentencesOf(reply)) {
    const opensAsQuestion = QUESTION_OPENING.test(sentence.clauses[0] ?? "");
    for (const [i, clause] of sentence.clauses.entries()) {
      const question = { sentence: sentence.question, opensAsQuestion, lastClause: i === sentence.clauses.length - 1 };
      for (const pattern of patterns) {
        const match = caseInsensitive(pattern.pattern).exec(clause);
        if (match && claims(pattern, clause, match.index, match.index + match[0].length, question))
          return { text: sentence.text, pattern: pattern.name };
      }
    }
  }
  return undefined;
}

/** A copy of the pattern, case-insensitive and without state (`g`, `y`). */
function caseInsensitive(pattern: RegExp): RegExp {
  const flags = pattern.flags.replace(/[gyi]/g, "");
  return new RegExp(pattern.source, `${flags}i`);
}

function findRawClaim(reply: string, claim: Exclude<Claim, ClaimPattern>): ClaimMatch | undefined {
  if (typeof claim === "string") {
    const at = reply.toLowerCase().indexOf(claim.toLowerCase());
    return at < 0 ? undefined : { text: reply.slice(at, at + claim.length), pattern: `substring:${claim}` };
  }
  if (claim instanceof RegExp) {
    claim.lastIndex = 0;
    const match = claim.exec(reply);
    claim.lastIndex = 0;
    return match ? { text: match[0], pattern: `pattern:${claim.source}` } : undefined;
  }
  const found = claim(reply);
  if (typeof found === "string" && found !== "") return { text: found, pattern: "function" };
  return found === true ? { text: reply, pattern: "function" } : undefined;
}

function isClaimPattern(claim: Claim): claim is ClaimPattern {
  return typeof claim === "object" && !(claim instanceof RegExp);
}

/**
 * The first claim of a change in the reply, or undefined. `patterns` defaults to
 * `defaultClaimPatterns`; the `ClaimPattern` entries are tried first, sentence by sentence, then
 * the raw ones (RegExp, string, function) on the whole reply.
 */
export function findClaim(reply: string, patterns: readonly Claim[] = defaultClaimPatterns): ClaimMatch | undefined {
  const found = findPatternClaim(reply, patterns.filter(isClaimPattern));
  if (found) return found;
  for (const claim of patterns) {
    if (isClaimPattern(claim)) continue;
    const raw = findRawClaim(reply, claim);
    if (raw) return raw;
  }
  return undefined;
}
