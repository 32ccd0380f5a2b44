/** The schedules (`#/schedules`): each agent schedule with its state and next runs, and a link to the runs it started. */
import type { ScheduleRow, SchedulesResponse } from "../../../api-types.js";
import { href } from "../route.js";
import { useFetch } from "../use-fetch.js";

/** How many of a schedule's next run times the table shows. */
const NEXT_SHOWN = 3;

/** The schedules view. */
export function SchedulesPage() {
  const schedules = useFetch<SchedulesResponse>("/api/schedules");
  return (
    <section>
      <h2>Schedules</h2>
      <p class="hint">
        Agent schedules (<code>agent.schedule()</code>, <code>durable-agent schedule create</code>); their runs carry
        the schedule's id as <code>TemporalScheduledById</code>.
      </p>
      {schedules.error && <p class="error">{schedules.error}</p>}
      <table data-testid="schedules">
        <thead>
          <tr>
            <th>id</th>
            <th>agent</th>
            <th>state</th>
            <th>next runs</th>
            <th>last run</th>
            <th>runs</th>
          </tr>
        </thead>
        <tbody>
          {schedules.value?.schedules.map((schedule) => (
            <ScheduleLine key={schedule.id} schedule={schedule} />
          ))}
        </tbody>
      </table>
      {schedules.value?.schedules.length === 0 && <p>No agent schedules.</p>}
    </section>
  );
}

function ScheduleLine({ schedule }: { schedule: ScheduleRow }) {
  const last = schedule.recentRuns.at(-1);
  return (
    <tr data-testid="schedule" data-id={schedule.id}>
      <td>{schedule.id}</td>
      <td>{schedule.agent}</td>
      <td data-testid="schedule-state">
        {schedule.paused ? <span class="tag">paused</span> : "active"}
        {schedule.note && <span class="hint"> {schedule.note}</span>}
      </td>
      <td data-testid="schedule-next">
        {schedule.nextRuns.slice(0, NEXT_SHOWN).map((time) => (
          <div key={time}>{new Date(time).toLocaleString()}</div>
        ))}
        {schedule.nextRuns.length === 0 && "–"}
      </td>
      <td>{last ? <a href={href("run", last.workflowId)}>{new Date(last.startedAt).toLocaleString()}</a> : "–"}</td>
      <td>
        <a href={href("runs", { schedule: schedule.id })} data-testid="schedule-runs">
          its runs
        </a>
      </td>
    </tr>
  );
}
