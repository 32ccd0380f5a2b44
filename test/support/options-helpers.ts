/** Helpers for the tests of bad options. */
import { expect } from "vitest";
import { AgentOptionsError } from "../../src/index.js";

/** The `field` of the AgentOptionsError that `fn` throws; fails the test when it throws none or another error. */
export function optionsErrorField(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(AgentOptionsError.isInstance(error)).toBe(true);
    return (error as AgentOptionsError).field;
  }
  throw new Error("no error thrown");
}
