/**
 * Edit and fork: a run at a trip, onto the same or another agent of the module, with instructions,
 * a model id or model settings of its own (`POST /api/runs/:id/fork`); the fork then opens live.
 */
import { useState } from "preact/hooks";
import type { ForkRequest, ForkResponse } from "../../../api-types.js";
import { postJson, segment } from "../api.js";
import { useMeta } from "../meta.js";
import { href, navigate } from "../route.js";

/** The dialog; `trips` is how many trips the run has (a fork goes on from before one of them). */
export function ForkDialog(props: { workflowId: string; agent: string; trips: number; onClose: () => void }) {
  const meta = useMeta();
  const [request, setRequest] = useState<ForkRequest>({
    atTrip: Math.min(2, Math.max(1, props.trips)),
    agent: meta.agents.some((a) => a.name === props.agent) ? props.agent : (meta.agents[0]?.name ?? props.agent),
  });
  const [edits, setEdits] = useState({ instructions: "", model: "", temperature: "", maxTokens: "" });
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const fork = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const modelSettings = {
        ...(edits.temperature !== "" ? { temperature: Number(edits.temperature) } : {}),
        ...(edits.maxTokens !== "" ? { maxTokens: Number(edits.maxTokens) } : {}),
      };
      const { workflowId } = await postJson<ForkResponse>(`/api/runs/${segment(props.workflowId)}/fork`, {
        ...request,
        ...(edits.instructions.trim() ? { instructions: edits.instructions } : {}),
        ...(edits.model.trim() ? { model: edits.model.trim() } : {}),
        ...(Object.keys(modelSettings).length > 0 ? { modelSettings } : {}),
      });
      props.onClose();
      navigate(href("run", workflowId));
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };
  return (
    <div class="backdrop">
      <form class="dialog" data-testid="fork-dialog" onSubmit={fork}>
        <h3>Fork {props.workflowId}</h3>
        <label>
          at trip
          <select
            data-testid="fork-trip"
            value={request.atTrip}
            onChange={(e) => setRequest({ ...request, atTrip: Number(e.currentTarget.value) })}
          >
            {Array.from({ length: Math.max(1, props.trips) }, (_, i) => i + 1).map((trip) => (
              <option key={trip} value={trip}>
                {trip}
              </option>
            ))}
          </select>
        </label>
        <label>
          onto agent
          <select
            data-testid="fork-agent"
            value={request.agent}
            onChange={(e) => setRequest({ ...request, agent: e.currentTarget.value })}
          >
            {meta.agents.map((agent) => (
              <option key={agent.name} value={agent.name}>
                {agent.name}
                {agent.version ? ` (${agent.version})` : ""}
              </option>
            ))}
          </select>
        </label>
        <label>
          instructions
          <textarea
            data-testid="fork-instructions"
            rows={3}
            placeholder="the agent's own"
            value={edits.instructions}
            onInput={(e) => setEdits({ ...edits, instructions: e.currentTarget.value })}
          />
        </label>
        <label>
          model
          <input
            data-testid="fork-model"
            placeholder="the agent's own (an ai.openai() model id)"
            value={edits.model}
            onInput={(e) => setEdits({ ...edits, model: e.currentTarget.value })}
          />
        </label>
        <label>
          temperature
          <input
            data-testid="fork-temperature"
            type="number"
            step="0.1"
            min="0"
            max="2"
            placeholder="as recorded"
            value={edits.temperature}
            onInput={(e) => setEdits({ ...edits, temperature: e.currentTarget.value })}
          />
        </label>
        <label>
          max tokens
          <input
            data-testid="fork-max-tokens"
            type="number"
            step="1"
            min="1"
            placeholder="as recorded"
            value={edits.maxTokens}
            onInput={(e) => setEdits({ ...edits, maxTokens: e.currentTarget.value })}
          />
        </label>
        <p class="hint">
          The fork keeps the conversation before trip {request.atTrip} and goes on from there with {request.agent}.
        </p>
        {error && (
          <p class="error" data-testid="fork-error">
            {error}
          </p>
        )}
        <div class="buttons">
          <button type="submit" data-testid="fork-submit" disabled={busy || !request.agent}>
            Fork
          </button>
          <button type="button" onClick={props.onClose}>
            Close
          </button>
        </div>
      </form>
    </div>
  );
}
