/**
 * The runs list: filters (in the hash, so a filtered list is a link), one page of runs at a time
 * by the server's page tokens, kept up to date by polling the page shown, and the selection that
 * becomes a dataset.
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import type { RunRow, RunsResponse } from "../../../api-types.js";
import { getJson } from "../api.js";
import * as fmt from "../format.js";
import { href } from "../route.js";
import { FilterForm } from "./filter-form.js";
import { filtersFrom, toQuery } from "./filters.js";
import { SaveDataset } from "./save-dataset.js";

/** Rows per page, unless the hash says (`pageSize=`). */
const PAGE_SIZE = 50;
/** How often the page shown is fetched again while auto-refresh is on. */
const REFRESH_MS = 2000;

/** The runs view (`#/runs?agent=…`). */
export function RunsList({ params }: { params: URLSearchParams }) {
  const key = params.toString();
  const filters = useMemo(() => filtersFrom(params), [key]);
  const query = useMemo(() => toQuery(filters), [filters]);
  const pageSize = Number(params.get("pageSize")) || PAGE_SIZE;
  // The page tokens of the pages before the one shown: [undefined] on the first page.
  const [tokens, setTokens] = useState<Array<string | undefined>>([undefined]);
  const [page, setPage] = useState<RunsResponse>();
  const [error, setError] = useState<string>();
  const [live, setLive] = useState(true);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const pageToken = tokens[tokens.length - 1];

  useEffect(() => setTokens([undefined]), [key]);

  useEffect(() => {
    let stopped = false;
    let timer: number | undefined;
    const load = async () => {
      try {
        const next = await getJson<RunsResponse>("/api/runs", { ...query, pageSize, pageToken });
        if (stopped) return;
        setPage(next);
        setError(undefined);
      } catch (e) {
        if (!stopped) setError((e as Error).message);
      }
      if (!stopped && live) timer = window.setTimeout(load, REFRESH_MS);
    };
    void load();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, [query, pageSize, pageToken, live]);

  const toggle = (id: string) =>
    setSelected((old) => {
      const next = new Set(old);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const rows = page?.runs ?? [];
  const allShown = rows.length > 0 && rows.every((row) => selected.has(row.workflowId));

  return (
    <section>
      <FilterForm filters={filters} />
      <div class="bar">
        <label>
          <input
            type="checkbox"
            checked={live}
            data-testid="auto-refresh"
            onChange={(e) => setLive(e.currentTarget.checked)}
          />{" "}
          auto-refresh
        </label>
        <span data-testid="page-number">page {tokens.length}</span>
        <button data-testid="prev-page" disabled={tokens.length < 2} onClick={() => setTokens(tokens.slice(0, -1))}>
          ← previous
        </button>
        <button
          data-testid="next-page"
          disabled={!page?.nextPageToken}
          onClick={() => setTokens([...tokens, page?.nextPageToken])}
        >
          next →
        </button>
        <SaveDataset selected={[...selected]} filter={query} onSaved={() => setSelected(new Set())} />
      </div>
      {error && (
        <p class="error" data-testid="error">
          {error}
        </p>
      )}
      <table class="runs" data-testid="runs">
        <thead>
          <tr>
            <th>
              <input
                type="checkbox"
                title="select the runs shown"
                data-testid="select-page"
                checked={allShown}
                onChange={() =>
                  setSelected((old) => {
                    const next = new Set(old);
                    for (const row of rows) {
                      if (allShown) next.delete(row.workflowId);
                      else next.add(row.workflowId);
                    }
                    return next;
                  })
                }
              />
            </th>
            <th>run</th>
            <th>first words</th>
            <th>agent</th>
            <th>version</th>
            <th>status</th>
            <th>stop reason</th>
            <th>contract</th>
            <th class="num">trips</th>
            <th class="num">tokens</th>
            <th class="num">cost</th>
            <th>started</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <Row key={row.workflowId} row={row} selected={selected.has(row.workflowId)} toggle={toggle} />
          ))}
        </tbody>
      </table>
      {page && rows.length === 0 && <p data-testid="no-runs">No runs match.</p>}
    </section>
  );
}

function Row({ row, selected, toggle }: { row: RunRow; selected: boolean; toggle: (id: string) => void }) {
  return (
    <tr data-testid="run-row" data-workflow-id={row.workflowId} data-status={row.status}>
      <td>
        <input type="checkbox" data-testid="select-run" checked={selected} onChange={() => toggle(row.workflowId)} />
      </td>
      <td>
        <a href={href("run", row.workflowId)} data-testid="open-run">
          {row.workflowId}
        </a>
        {row.session && <span class="tag">session</span>}
        {row.eval && <span class="tag">eval</span>}
        {row.encrypted && <span class="tag">encrypted</span>}
        {row.awaitingApproval && (
          <span class="tag awaiting" data-testid="awaiting-approval">
            awaiting approval{row.awaitingApproval > 1 ? ` (${row.awaitingApproval})` : ""}
          </span>
        )}
      </td>
      <td class="first-words" data-testid="first-words">
        {row.firstWords ?? "–"}
      </td>
      <td>{row.agent}</td>
      <td>{row.version ?? "–"}</td>
      <td>
        <span class={`status ${row.status}`}>{row.status}</span>
      </td>
      <td>{row.stopReason ?? "–"}</td>
      <td data-testid="fired">
        {row.fired.reprompted && <span class="tag fired">re-prompted</span>}
        {row.fired.refusalRetried && <span class="tag fired">refusal retried</span>}
        {row.fired.backstopRan && <span class="tag fired">backstop</span>}
      </td>
      <td class="num">{row.trips ?? "–"}</td>
      <td class="num" data-testid="tokens">
        {fmt.tokens(row.tokens)}
      </td>
      <td class="num" data-testid="cost">
        {fmt.cost(row.cost)}
      </td>
      <td>{fmt.time(row.startTime)}</td>
    </tr>
  );
}
