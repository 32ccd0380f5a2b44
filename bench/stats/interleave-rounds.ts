/**
 * Rounds of several subjects, interleaved: round 1 of every subject, then round 2 of every subject,
 * and so on (A, B, C, A, B, C, ...), never all of A's rounds before B's. Load that comes and goes on
 * a shared machine then falls on every subject alike, and round i of one subject can be paired with
 * round i of another (see `ratioInterval`).
 */

/**
 * Runs `rounds` rounds of each of `subjects`, interleaved round by round, one call at a time, in the
 * subjects' order within each round. `runRound(subject, round, index)` measures one round of one
 * subject (`round` counts from 0, `index` is the subject's position in `subjects`) and resolves to
 * its sample. Resolves to the samples by subject, then by round: `samples[index][round]`. A round
 * that rejects stops the whole run with its error.
 */
export async function interleaveRounds<S, T>(
  subjects: readonly S[],
  rounds: number,
  runRound: (subject: S, round: number, index: number) => Promise<T>,
): Promise<T[][]> {
  if (!Number.isInteger(rounds) || rounds < 0)
    throw new RangeError(`interleaveRounds: rounds must be a whole number ≥ 0, got ${rounds}`);
  const samples = subjects.map((): T[] => []);
  for (let round = 0; round < rounds; round++)
    for (const [index, subject] of subjects.entries()) samples[index]!.push(await runRound(subject, round, index));
  return samples;
}
