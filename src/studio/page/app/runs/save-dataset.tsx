/** "Save selected / all matching as a dataset": `POST /api/datasets` with the ids or the filter. */
import { useState } from "preact/hooks";
import type { DatasetRequest, DatasetResponse, RunsQuery } from "../../../api-types.js";
import { ApiError, postJson } from "../api.js";
import { href } from "../route.js";

/** The dataset controls of the runs list. */
export function SaveDataset(props: {
  selected: string[];
  filter: Omit<RunsQuery, "pageSize" | "pageToken">;
  onSaved: () => void;
}) {
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  // `taken`: the request refused because the name is taken, to send again with `overwrite` if the user says so.
  const [result, setResult] = useState<{ saved?: DatasetResponse; error?: string; taken?: DatasetRequest }>({});
  const save = async (request: DatasetRequest) => {
    setBusy(true);
    try {
      setResult({ saved: await postJson<DatasetResponse>("/api/datasets", request) });
      props.onSaved();
    } catch (error) {
      const taken = ApiError.isInstance(error) && error.status === 409 ? request : undefined;
      setResult({ error: (error as Error).message, ...(taken ? { taken } : {}) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="save-dataset">
      <input
        placeholder="dataset name"
        value={name}
        data-testid="dataset-name"
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <button
        data-testid="save-selected"
        disabled={busy || !name || props.selected.length === 0}
        onClick={() => save({ name, workflowIds: props.selected })}
      >
        Save {props.selected.length} selected
      </button>
      <button data-testid="save-matching" disabled={busy || !name} onClick={() => save({ name, filter: props.filter })}>
        Save all matching
      </button>
      {result.saved && (
        <span data-testid="dataset-saved">
          saved {result.saved.cases} {result.saved.cases === 1 ? "case" : "cases"} to {result.saved.path} ·{" "}
          <a href={href("datasets")}>datasets</a>
        </span>
      )}
      {result.error && (
        <span class="error" data-testid="dataset-error">
          {result.error}
        </span>
      )}
      {result.taken && (
        <button
          data-testid="dataset-overwrite"
          disabled={busy}
          onClick={() => result.taken && save({ ...result.taken, overwrite: true })}
        >
          Overwrite {result.taken.name}
        </button>
      )}
    </span>
  );
}
