/** The datasets (`#/datasets`): each saved case file, and an eval of it against an agent of the module. */
import { useState } from "preact/hooks";
import type { DatasetInfo, DatasetsResponse, EvalRequest, EvalStarted } from "../../../api-types.js";
import { postJson } from "../api.js";
import { useMeta } from "../meta.js";
import { href } from "../route.js";
import { useFetch } from "../use-fetch.js";
import { EvalProgressBar } from "./eval-progress.js";

/** The datasets view. */
export function DatasetsPage() {
  const datasets = useFetch<DatasetsResponse>("/api/datasets");
  return (
    <section>
      <h2>Datasets</h2>
      <p class="hint">
        Save runs from the <a href={href("runs")}>runs list</a>; each dataset is a JSON Lines case file.
      </p>
      {datasets.error && <p class="error">{datasets.error}</p>}
      <table data-testid="datasets">
        <thead>
          <tr>
            <th>name</th>
            <th class="num">cases</th>
            <th>file</th>
            <th>eval</th>
          </tr>
        </thead>
        <tbody>
          {datasets.value?.datasets.map((dataset) => (
            <DatasetRow key={dataset.name} dataset={dataset} />
          ))}
        </tbody>
      </table>
      {datasets.value?.datasets.length === 0 && <p>No datasets yet.</p>}
    </section>
  );
}

function DatasetRow({ dataset }: { dataset: DatasetInfo }) {
  const meta = useMeta();
  const [request, setRequest] = useState<EvalRequest>({
    dataset: dataset.name,
    agent: meta.agents[0]?.name ?? "",
    recordedTools: true,
  });
  const [started, setStarted] = useState<string>();
  const [error, setError] = useState<string>();
  const run = async () => {
    setError(undefined);
    try {
      setStarted((await postJson<EvalStarted>("/api/evals", request)).id);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <tr data-testid="dataset" data-name={dataset.name}>
      <td>{dataset.name}</td>
      <td class="num" data-testid="dataset-cases">
        {dataset.cases}
      </td>
      <td>
        <code>{dataset.path}</code>
      </td>
      <td>
        {meta.canEval ? (
          <span class="eval-form">
            <select
              data-testid="eval-agent"
              value={request.agent}
              onChange={(e) => setRequest({ ...request, agent: e.currentTarget.value })}
            >
              {meta.agents.map((agent) => (
                <option key={agent.name}>{agent.name}</option>
              ))}
            </select>
            <label title="replay the recorded tool results: no side effects">
              <input
                type="checkbox"
                data-testid="eval-recorded-tools"
                checked={request.recordedTools}
                onChange={(e) => setRequest({ ...request, recordedTools: e.currentTarget.checked })}
              />{" "}
              recorded tools
            </label>
            <button data-testid="run-eval" disabled={!request.agent} onClick={run}>
              Run eval
            </button>
            {started && <EvalProgressBar key={started} id={started} />}
            {error && (
              <span class="error" data-testid="eval-error">
                {error}
              </span>
            )}
          </span>
        ) : (
          <span class="hint">start the studio with an agents module to run evals</span>
        )}
      </td>
    </tr>
  );
}
