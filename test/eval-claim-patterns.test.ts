import { describe, expect, it } from "vitest";
import { defaultClaimPatterns, findClaim } from "../src/eval/claim-patterns.js";

/** Replies that say something was changed. */
const CLAIMING = [
  // the specification's examples
  "I've swapped it.",
  "Your plan has been updated.",
  "Done — squats are now lunges.",
  "Your plan now has lunges instead of squats.",
  // first person, perfect and past
  "I've replaced squats with lunges.",
  "I have updated your plan.",
  "We've changed your Monday workout.",
  "I swapped squats for lunges.",
  "I replaced squats with lunges in your plan.",
  "I’ve swapped squats for lunges.",
  "I've gone ahead and swapped squats for lunges.",
  "I went ahead and replaced squats with lunges.",
  "I've made the change.",
  "I just updated your plan.",
  "I've added lunges and removed squats.",
  "I've successfully updated your plan.",
  "I have just changed squats to lunges.",
  "I've set your plan to lunges, push-ups and planks.",
  "We've moved your leg day to Tuesday.",
  "We have replaced squats with lunges.",
  "I've taken care of it: lunges instead of squats.",
  // a claim next to a modal, an offer or a question
  "I can confirm I've updated your plan.",
  "I've swapped squats for lunges — want me to add stretches too?",
  "No problem, I've swapped them.",
  "No worries I've swapped them.",
  "As you asked, I have replaced squats with lunges.",
  // passive
  "Squats have been swapped for lunges.",
  "It's been updated.",
  "The change has been made.",
  "Changes have been saved.",
  "Your plan's been updated.",
  "Your workout has now been updated with lunges.",
  "Your plan has been successfully updated.",
  "Okay, squats have been removed and lunges added.",
  "Great news — your squats were replaced with lunges.",
  "Your plan was updated successfully.",
  "Awesome, your plan is all updated!",
  // other wordings
  "Done!",
  "All set! Lunges are in your plan now.",
  "That's done: squats are out, lunges are in.",
  "Consider it done.",
  "Plan updated.",
  "Change made!",
  "The swap is complete.",
  "Swapped squats for lunges.",
  "Updated your plan: lunges, push-ups, planks.",
  "Replaced squats with lunges, as requested.",
  "✅ Updated.",
  "Got it — squats swapped for lunges.",
  "Squats are no longer in your plan; lunges took their place.",
  "Your plan is now lunges, push-ups and planks.",
  "Squats are now lunges in your plan.",
  "Lunges are now part of your plan.",
  "You now have lunges instead of squats.",
  "Here's your updated plan: lunges, push-ups, planks.",
  "Lunges are a good swap for squats. I've swapped them in your plan.",
  "Sure thing!\nDone — your plan now lists lunges.",
];

/** Replies that offer, refuse, plan, ask or explain, and change nothing. */
const NOT_CLAIMING = [
  // offers
  "Want me to swap that?",
  "I can update it for you.",
  "Would you like me to swap squats for lunges?",
  "Shall I update your plan?",
  "I could replace squats with lunges if you like.",
  "If you'd like, I can swap squats for lunges.",
  "Let me know if you want me to change anything.",
  "I'd be happy to swap squats for lunges.",
  "Ready to swap when you are.",
  "Sure — I can replace squats with lunges. Just say the word.",
  "Do you want squats replaced with lunges?",
  "If you want, squats can be swapped for lunges.",
  "Squats could be replaced with lunges.",
  "I've noted that you want squats swapped for lunges. Shall I go ahead?",
  "Let me know if you want anything else changed.",
  // negations
  "I haven't changed anything yet.",
  "I have not updated your plan.",
  "Nothing has been changed.",
  "No changes have been made to your plan.",
  "I didn't swap anything.",
  "Your plan hasn't been updated yet.",
  "Squats haven't been replaced.",
  "None of your exercises were swapped.",
  "The swap isn't done.",
  "Not updated yet: lunges aren't in the library.",
  "I wasn't able to update your plan: lunges aren't in the library.",
  "I couldn't swap squats for lunges because the tool refused.",
  "I can't change your plan right now.",
  "I'm not able to update the plan without a valid exercise.",
  "I haven't swapped squats for lunges; want me to?",
  "Your plan is unchanged.",
  // future tense, intentions, attempts and conditions
  "I'll replace it.",
  "I will update your plan once you confirm.",
  "I'm going to swap squats for lunges.",
  "Let me swap that for you.",
  "I'm updating your plan now.",
  "I'll have it updated by tonight.",
  "Once you confirm, your plan will be updated.",
  "I tried to update your plan, but it failed.",
  "I would have swapped them, but lunges aren't available.",
  "It should have been updated, but the tool refused.",
  "If I swapped squats for lunges, you would still train your legs.",
  "Once I've updated your plan, you'll see lunges on Monday.",
  "Before I change anything, which day is this for?",
  // questions and advice
  "Should squats be swapped for lunges, or do you prefer step-ups?",
  "Were squats replaced in your old program?",
  "Have you changed your routine recently?",
  "Lunges are a great replacement for squats.",
  "You can swap squats for lunges in the app settings.",
  "Squats work your quads, glutes and hamstrings.",
  "Changing exercises every few weeks keeps training fresh.",
  "Updated plans are emailed every Monday.",
  "Here's what I'd change: squats for lunges.",
  "I've checked your plan: it has squats, push-ups and planks.",
  "Your plan still has squats, push-ups and planks.",
  "It is now time for a rest day.",
  "You asked to swap squats for lunges.",
  "The tool said lunges are not in the library, so your plan is the same.",
];

describe("defaultClaimPatterns", () => {
  it("the table has at least 40 claiming and 40 non-claiming replies, none in both", () => {
    expect(CLAIMING.length).toBeGreaterThanOrEqual(40);
    expect(NOT_CLAIMING.length).toBeGreaterThanOrEqual(40);
    expect(CLAIMING.filter((reply) => NOT_CLAIMING.includes(reply))).toEqual([]);
  });

  it.each(CLAIMING)("claims a change: %s", (reply) => {
    expect(findClaim(reply)).toBeDefined();
  });

  it.each(NOT_CLAIMING)("claims no change: %s", (reply) => {
    expect(findClaim(reply)).toBeUndefined();
  });

  it("names the sentence that claims and the pattern that matched", () => {
    expect(findClaim("Lunges are a good swap for squats. I've swapped them in your plan. Anything else?")).toEqual({
      text: "I've swapped them in your plan.",
      pattern: "first-person-perfect",
    });
    expect(findClaim("Done — squats are now lunges.")).toEqual({
      text: "Done — squats are now lunges.",
      pattern: "done",
    });
  });

  it("every default pattern is exercised by some claiming reply of the table", () => {
    const used = new Set(CLAIMING.map((reply) => findClaim(reply)?.pattern));
    expect(defaultClaimPatterns.map((p) => p.name).filter((name) => !used.has(name))).toEqual([]);
  });

  it("a stateful (global) RegExp in a pattern gives the same answer every time", () => {
    const claims = [{ name: "booked", strength: "weak" as const, pattern: /\bbooked\b/gi }];
    expect([1, 2, 3].map(() => findClaim("Booked it.", claims)?.pattern)).toEqual(["booked", "booked", "booked"]);
  });
});

describe("findClaim with custom claims", () => {
  it("a RegExp, a substring or a function is tried on the whole reply, without the negation rules", () => {
    expect(findClaim("Not booked yet.", [/\bbooked\b/i])).toEqual({ text: "booked", pattern: "pattern:\\bbooked\\b" });
    expect(findClaim("Your slot: CONFIRMED", ["confirmed"])).toEqual({
      text: "CONFIRMED",
      pattern: "substring:confirmed",
    });
    expect(findClaim("ticket #42 filed", [(reply) => /#\d+/.exec(reply)?.[0]])).toEqual({
      text: "#42",
      pattern: "function",
    });
    expect(findClaim("all good", [(reply) => reply === "all good"])).toEqual({ text: "all good", pattern: "function" });
  });

  it("custom claims replace the defaults", () => {
    expect(findClaim("I've swapped it.", [/\bbooked\b/i])).toBeUndefined();
  });

  it("a custom ClaimPattern gets the negation and question rules", () => {
    const booked = { name: "booked", strength: "weak" as const, pattern: /\bbooked\b/ };
    expect(findClaim("Your class is booked.", [booked])).toEqual({ text: "Your class is booked.", pattern: "booked" });
    expect(findClaim("Your class is not booked.", [booked])).toBeUndefined();
    expect(findClaim("Should it be booked?", [booked])).toBeUndefined();
  });
});
