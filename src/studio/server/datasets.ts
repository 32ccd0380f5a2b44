/**
 * `/api/datasets`: runs saved as JSON Lines case files (`ai.eval.casesFromRuns` and `writeCases`),
 * by workflow id or as every completed run matching the runs list's filters.
 */
import { access, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Client } from "@temporalio/client";
import { DurableAgentError } from "../../errors.js";
import { writeCases } from "../../datasets/case-file.js";
import { casesFromRuns } from "../../datasets/cases-from-runs.js";
import type { DatasetInfo, DatasetRequest, DatasetResponse } from "../api-types.js";
import { StudioRequestError } from "./http-error.js";
import { runsVisibilityQuery } from "./runs-list.js";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const EXTENSION = ".jsonl";

/** The case file of a dataset name, checked. */
export function datasetPath(dataDir: string, name: unknown): string {
  if (typeof name !== "string" || !NAME.test(name) || name.endsWith(EXTENSION) || name.includes(".."))
    throw new StudioRequestError(
      400,
      `A dataset's \`name\` is letters, digits, ".", "-" and "_" (at most 100, without ${EXTENSION}; got ${JSON.stringify(name)}).`,
    );
  return join(dataDir, "datasets", `${name}${EXTENSION}`);
}

/**
 * Saves the runs as a dataset; throws `StudioRequestError` when no run is named or none has
 * finished, and (409) when a dataset has the name and the request does not say `overwrite`.
 */
export async function saveDataset(client: Client, dataDir: string, body: DatasetRequest): Promise<DatasetResponse> {
  const path = datasetPath(dataDir, body?.name);
  if (body.overwrite !== undefined && typeof body.overwrite !== "boolean")
    throw new StudioRequestError(400, "`overwrite` must be true or false.");
  if (!body.overwrite && (await exists(path)))
    throw new StudioRequestError(
      409,
      `A dataset named "${body.name}" exists: pick another name, or overwrite it (\`overwrite: true\`).`,
    );
  const ids = body.workflowIds;
  if (ids !== undefined && (!Array.isArray(ids) || ids.some((id) => typeof id !== "string")))
    throw new StudioRequestError(400, "`workflowIds` must be an array of workflow ids.");
  if (!ids?.length && !body.filter)
    throw new StudioRequestError(
      400,
      "Name the runs: `workflowIds`, or a `filter` for every completed run matching it.",
    );
  const cases = await casesFromRuns({
    client,
    ...(ids?.length ? { workflowIds: ids } : { query: runsVisibilityQuery(body.filter ?? {}) }),
  }).catch((error: unknown) => {
    throw DurableAgentError.isInstance(error) ? new StudioRequestError(400, error.message) : error;
  });
  if (cases.length === 0) throw new StudioRequestError(400, "No completed run matches: nothing to save.");
  await writeCases(path, cases);
  return { path, cases: cases.length };
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** The saved datasets, by name. */
export async function listDatasets(dataDir: string): Promise<DatasetInfo[]> {
  const folder = join(dataDir, "datasets");
  const files = await readdir(folder).catch(() => [] as string[]);
  return Promise.all(
    files
      .filter((file) => file.endsWith(EXTENSION))
      .sort()
      .map(async (file) => {
        const path = join(folder, file);
        const text = await readFile(path, "utf8");
        return { name: file.slice(0, -EXTENSION.length), path, cases: text.split("\n").filter((l) => l.trim()).length };
      }),
  );
}
