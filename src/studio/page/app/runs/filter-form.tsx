/** The runs list's filter form: edits a copy of the filters and applies them to the hash. */
import { useEffect, useState } from "preact/hooks";
import { useMeta } from "../meta.js";
import { href, navigate } from "../route.js";
import { FIRED, STATUSES, STOP_REASONS, type FilterKey, type Filters } from "./filters.js";

/** The form; `filters` are the ones applied. */
export function FilterForm({ filters }: { filters: Filters }) {
  const meta = useMeta();
  const [draft, setDraft] = useState(filters);
  useEffect(() => setDraft(filters), [filters]);
  const set = (key: FilterKey) => (e: { currentTarget: { value: string } }) =>
    setDraft({ ...draft, [key]: e.currentTarget.value });
  const apply = (e: Event) => {
    e.preventDefault();
    navigate(href("runs", draft));
  };
  return (
    <form class="filters" data-testid="filters" onSubmit={apply}>
      <label>
        agent
        <input list="studio-agents" value={draft.agent} data-testid="filter-agent" onInput={set("agent")} />
        <datalist id="studio-agents">
          {meta.agents.map((agent) => (
            <option key={agent.name} value={agent.name} />
          ))}
        </datalist>
      </label>
      <label>
        version
        <input value={draft.version} data-testid="filter-version" onInput={set("version")} size={8} />
      </label>
      <label>
        schedule
        <input value={draft.schedule} data-testid="filter-schedule" onInput={set("schedule")} size={12} />
      </label>
      <label>
        status
        <select value={draft.status} data-testid="filter-status" onChange={set("status")}>
          <option value="">any</option>
          {STATUSES.map((status) => (
            <option key={status}>{status}</option>
          ))}
        </select>
      </label>
      <label>
        waiting for
        <select value={draft.awaiting} data-testid="filter-awaiting" onChange={set("awaiting")}>
          <option value="">anything</option>
          <option value="approval">awaiting approval</option>
        </select>
      </label>
      <label>
        stop reason
        <select value={draft.stopReason} data-testid="filter-stop-reason" onChange={set("stopReason")}>
          <option value="">any</option>
          {STOP_REASONS.map((reason) => (
            <option key={reason}>{reason}</option>
          ))}
        </select>
      </label>
      <label>
        the contract fired
        <select value={draft.fired} data-testid="filter-fired" onChange={set("fired")}>
          <option value="">any run</option>
          {FIRED.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        from
        <input type="datetime-local" value={draft.from} data-testid="filter-from" onInput={set("from")} />
      </label>
      <label>
        to
        <input type="datetime-local" value={draft.to} data-testid="filter-to" onInput={set("to")} />
      </label>
      <label class="wide">
        visibility query
        <input
          value={draft.query}
          data-testid="filter-query"
          placeholder={"e.g. WorkflowId STARTS_WITH 'support-'"}
          onInput={set("query")}
        />
      </label>
      <label class="check" title="the runs evals started are hidden unless this is checked">
        <input
          type="checkbox"
          data-testid="show-evals"
          checked={draft.evals === "show"}
          onChange={(e) => setDraft({ ...draft, evals: e.currentTarget.checked ? "show" : "" })}
        />{" "}
        show eval runs
      </label>
      <button type="submit" data-testid="apply-filters">
        Apply
      </button>
      <a href={href("runs")} data-testid="clear-filters">
        clear
      </a>
    </form>
  );
}
