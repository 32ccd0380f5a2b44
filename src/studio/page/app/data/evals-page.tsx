/** The evals this studio has run (`#/evals`): progress, reports, and two picked for a comparison. */
import { useState } from "preact/hooks";
import type { EvalsResponse } from "../../../api-types.js";
import * as fmt from "../format.js";
import { href, navigate } from "../route.js";
import { useFetch } from "../use-fetch.js";
import { EvalProgressBar } from "./eval-progress.js";

/** The evals view. */
export function EvalsPage() {
  const evals = useFetch<EvalsResponse>("/api/evals");
  const [baseline, setBaseline] = useState<string>();
  const [current, setCurrent] = useState<string>();
  return (
    <section>
      <h2>Evals</h2>
      {evals.error && <p class="error">{evals.error}</p>}
      <p class="hint">
        Pick a baseline and a current eval to compare their reports.{" "}
        <button
          data-testid="compare-picked"
          disabled={!baseline || !current || baseline === current}
          onClick={() => navigate(href("compare", { a: baseline, b: current }))}
        >
          Compare
        </button>
      </p>
      <table data-testid="evals">
        <thead>
          <tr>
            <th>baseline</th>
            <th>current</th>
            <th>dataset</th>
            <th>agent</th>
            <th>started</th>
            <th>progress</th>
          </tr>
        </thead>
        <tbody>
          {evals.value?.evals.map((e) => (
            <tr key={e.id} data-testid="eval-row" data-eval-id={e.id}>
              <td>
                <input
                  type="radio"
                  name="baseline"
                  data-testid="pick-baseline"
                  checked={baseline === e.id}
                  onChange={() => setBaseline(e.id)}
                />
              </td>
              <td>
                <input
                  type="radio"
                  name="current"
                  data-testid="pick-current"
                  checked={current === e.id}
                  onChange={() => setCurrent(e.id)}
                />
              </td>
              <td title={`eval ${e.id}`}>{e.dataset}</td>
              <td>{e.agent}</td>
              <td>{fmt.time(e.startedAt)}</td>
              <td>
                <EvalProgressBar id={e.id} initial={e} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {evals.value?.evals.length === 0 && (
        <p>
          No evals yet: run one from <a href={href("datasets")}>a dataset</a>.
        </p>
      )}
    </section>
  );
}
