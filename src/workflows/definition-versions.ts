/**
 * Which definition of each agent served a run: the workflow records the `agent.version` its
 * workers report (the `agent.describe` result at the start, each model call's result), and
 * notices when it changes between two trips (a worker restarted on new code). Workflow-safe:
 * it computes nothing, it only compares what was recorded.
 */
import { log, upsertSearchAttributes } from "@temporalio/workflow";
import type { AgentSpec } from "../core/agent-spec.js";
import type { RunState } from "../core/run-state.js";
import { SEARCH_ATTRIBUTES } from "../core/search-attributes.js";
import { AgentDefinitionChangedError } from "../errors.js";
import { toFailure } from "../core/typed-failures.js";

/** The versions a run has seen, by agent name; `run.agentVersion` is its own agent's. */
export class DefinitionVersions {
  readonly #known = new Map<string, string>();

  constructor(
    private readonly run: RunState,
    /** The run's own agent, as described when the run (or its continuation) started. */
    private readonly entry: AgentSpec,
    /** The version the run carried across continue-as-new, if it did. */
    carried: string | undefined,
  ) {
    const first = carried ?? entry.version;
    if (first !== undefined) this.#known.set(entry.name, first);
    if (first !== undefined) run.agentVersion = first;
    // After continue-as-new the new run may be served by another build (a session on auto-upgrade).
    if (carried !== undefined && entry.version !== undefined) this.reported(entry, entry.version, run.trips + 1);
  }

  /**
   * A worker reported the version of `spec`'s agent that served trip `trip`. A change is recorded
   * in the trace as `agent.changed` (and in DurableAgentVersion for the run's own agent); with
   * `onDefinitionChange: "fail"` the run fails with AgentDefinitionChangedError.
   */
  reported(spec: AgentSpec, version: string | undefined, trip: number): void {
    if (version === undefined) return;
    const from = this.#known.get(spec.name);
    this.#known.set(spec.name, version);
    const own = spec.name === this.entry.name;
    if (from === version) return;
    if (own) {
      this.run.agentVersion = version;
      if (this.entry.searchAttributes) upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.version, value: version }]);
    }
    if (from === undefined) return; // first seen (a handoff's agent, or a run started by a worker before versions)
    this.run.trace.push({ trip, type: "agent.changed", agent: spec.name, from, to: version });
    log.warn("the agent definition serving the run changed", { agent: spec.name, from, to: version, trip });
    if (spec.failOnDefinitionChange || (own && this.entry.failOnDefinitionChange)) {
      throw toFailure(new AgentDefinitionChangedError(spec.name, from, version, trip));
    }
  }
}
