/**
 * A run's timeline: its steps (model calls, tool calls, waits for approval, failed attempts,
 * re-prompts, backstops) in time order, each with its start, duration and outcome, and a bar on
 * one time axis (SVG: its geometry is attributes, which the page's CSP allows, not inline styles).
 */
import type { RunTimeline } from "../../../api-types.js";
import * as fmt from "../format.js";

/** The axis's width in the SVG's own units. */
const WIDTH = 1000;

/** The timeline, or nothing for a run without steps yet. */
export function Timeline({ timeline }: { timeline: RunTimeline }) {
  const { steps } = timeline;
  if (steps.length === 0) return null;
  const total = Math.max(1, timeline.durationMs, ...steps.map((s) => s.startMs + s.durationMs));
  const x = (ms: number) => Math.max(0, Math.min(WIDTH, (ms / total) * WIDTH));
  return (
    <details class="timeline" data-testid="timeline" open>
      <summary>
        Timeline · {steps.length} {steps.length === 1 ? "step" : "steps"} over {fmt.ms(timeline.durationMs)}
      </summary>
      <table>
        <thead>
          <tr>
            <th>Step</th>
            <th class="num">Start</th>
            <th class="num">Duration</th>
            <th>Outcome</th>
            <th class="bar-cell">0 – {fmt.ms(total)}</th>
          </tr>
        </thead>
        <tbody>
          {steps.map((step, i) => (
            <tr
              key={i}
              data-testid="timeline-step"
              data-kind={step.kind}
              data-state={step.state}
              data-trip={step.trip ?? ""}
            >
              <td class={`step-label ${step.kind}`}>{step.label}</td>
              <td class="num" data-testid="step-start">
                +{fmt.ms(step.startMs)}
              </td>
              <td class="num" data-testid="step-duration">
                {step.state === "mark" ? "–" : fmt.ms(step.durationMs)}
              </td>
              <td class={`outcome ${step.state}`} data-testid="step-outcome">
                {step.outcome}
              </td>
              <td class="bar-cell">
                <svg viewBox={`0 0 ${WIDTH} 10`} preserveAspectRatio="none" class="bar-track" aria-hidden="true">
                  {step.state === "mark" ? (
                    <rect
                      class={`bar ${step.kind} mark`}
                      x={Math.min(WIDTH - 4, x(step.startMs))}
                      y={0}
                      width={4}
                      height={10}
                    />
                  ) : (
                    <rect
                      class={`bar ${step.kind} ${step.state}`}
                      x={x(step.startMs)}
                      y={1}
                      width={Math.max(3, x(step.startMs + step.durationMs) - x(step.startMs))}
                      height={8}
                    />
                  )}
                </svg>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
