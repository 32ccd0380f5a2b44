/** Whose memory: a run's `user`, checked on the client. */
import { InvalidUserError } from "../errors.js";

/** The longest user id. */
export const MAX_USER_ID_LENGTH = 256;

/** Throws `InvalidUserError` unless `user` is a string of 1-256 characters without control characters. */
export function checkUser(user: unknown): asserts user is string {
  if (typeof user !== "string")
    throw new InvalidUserError(`it is ${user === null ? "null" : typeof user}, not a string`);
  if (user.length === 0) throw new InvalidUserError("it is empty");
  if (user.length > MAX_USER_ID_LENGTH) throw new InvalidUserError(`it has ${user.length} characters`);
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u001f\u007f-\u009f]/.test(user)) throw new InvalidUserError("it has control characters");
}
