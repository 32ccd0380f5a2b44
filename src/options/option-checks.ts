/** Small checks shared by the option validators of agents and models; each throws `AgentOptionsError` naming the field. */
import { AgentOptionsError } from "../errors.js";

/** Throws `AgentOptionsError` for `field`. */
export function fail(field: string, problem: string): never {
  throw new AgentOptionsError(field, problem);
}

/** A whole number ≥ `min`, if given. */
export function checkCount(field: string, value: unknown, min: number): void {
  if (value !== undefined && (!Number.isInteger(value) || (value as number) < min)) {
    fail(field, `must be a whole number ≥ ${min} (got ${JSON.stringify(value)})`);
  }
}

/** A finite number ≥ 0, if given. */
export function checkAmount(field: string, value: unknown): void {
  if (value !== undefined && (typeof value !== "number" || !Number.isFinite(value) || value < 0))
    fail(field, `must be a number ≥ 0 (got ${JSON.stringify(value)})`);
}
