/** Case files: JSON Lines, one `RecordedCase` a line (schema: docs/recorded-case.schema.json). */
import { createReadStream } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { CaseFileError } from "./errors.js";
import { recordedCaseSchema, type RecordedCase } from "./recorded-case.js";

/** Writes the cases to `file` as JSON Lines (creating its folder), one case a line. */
export async function writeCases(file: string, cases: readonly RecordedCase[]): Promise<void> {
  await mkdir(dirname(resolve(file)), { recursive: true });
  await writeFile(file, cases.map((c) => JSON.stringify(c)).join("\n") + (cases.length ? "\n" : ""));
}

/** Reads a case file; throws `CaseFileError` with the line number and field of the first line that is not a case. Blank lines are skipped. */
export async function readCases(file: string): Promise<RecordedCase[]> {
  const cases: RecordedCase[] = [];
  const lines = createInterface({ input: createReadStream(file, "utf8"), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (text.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new CaseFileError(file, line, "", `not JSON (${(error as Error).message})`);
    }
    const parsed = recordedCaseSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new CaseFileError(file, line, issue.path.map(String).join("."), issue.message);
    }
    cases.push(parsed.data as RecordedCase);
  }
  return cases;
}
