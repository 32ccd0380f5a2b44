/** A run's conversation: its items by trip, each trip headed by its figures and marked with its re-prompts and backstops. */
import type { ComponentChildren } from "preact";
import type { ConversationItem, TripView } from "../../../api-types.js";
import * as fmt from "../format.js";
import { href } from "../route.js";
import { ItemView, type Actions } from "./items.js";
import { groupByTrip, type TripGroup } from "./trip-groups.js";

/** The conversation; `live` is the answer text streaming in for trips not yet answered, by trip. */
export function Conversation(props: {
  items: ConversationItem[];
  trips: TripView[];
  live?: Map<number, string>;
  actions?: Actions;
}) {
  const groups = groupByTrip(props.items);
  const answered = new Set(props.items.flatMap((item) => (item.type === "assistant" ? [item.trip] : [])));
  const streaming = [...(props.live ?? [])].filter(([trip, text]) => text && !answered.has(trip));
  return (
    <div class="conversation" data-testid="conversation">
      {groups.map((group, i) => (
        <TripSection key={i} group={group} figures={props.trips.find((t) => t.trip === group.trip)}>
          {group.items.map((item, j) =>
            item.type === "subagent" ? (
              <details key={j} class="item subagent" data-testid="subagent" data-workflow-id={item.workflowId} open>
                <summary>
                  sub-agent {item.tool} · <a href={href("run", item.workflowId)}>{item.workflowId}</a>
                </summary>
                <Conversation items={item.items} trips={[]} actions={props.actions} />
              </details>
            ) : (
              <ItemView key={j} item={item} actions={props.actions} />
            ),
          )}
        </TripSection>
      ))}
      {streaming.map(([trip, text]) => (
        <TripSection key={`live-${trip}`} group={{ trip, items: [] }}>
          <div class="item assistant live" data-testid="live-text" data-trip={trip}>
            <span class="who">assistant (streaming)</span>
            <p>{text}</p>
          </div>
        </TripSection>
      ))}
    </div>
  );
}

function TripSection(props: { group: TripGroup; figures?: TripView | undefined; children: ComponentChildren }) {
  const { group, figures } = props;
  const marks = group.items.flatMap((item) =>
    item.type === "reprompt"
      ? [{ kind: "reprompt", label: `re-prompted: ${item.reason}` }]
      : item.type === "backstop"
        ? [
            {
              kind: "backstop",
              label: `backstop ${item.name}${item.phase ? ` (${item.phase} the answer)` : ""}${item.reason ? `: ${item.reason}` : ""}`,
            },
          ]
        : [],
  );
  return (
    <section class="trip" data-testid="trip" data-trip={group.trip}>
      {group.message && (
        <div class="session-message" data-testid="session-message" data-index={group.message.index}>
          message {group.message.index + 1} · {group.message.status}
        </div>
      )}
      {group.trip > 0 && (
        <header class="trip-head">
          <strong>trip {group.trip}</strong>
          {figures && (
            <span class="figures" data-testid="trip-figures">
              model {fmt.ms(figures.modelLatencyMs)}
              {Object.entries(figures.toolLatenciesMs).map(([callId, latency]) => (
                <span key={callId}>
                  {" "}
                  · {callId} {fmt.ms(latency)}
                </span>
              ))}{" "}
              · {fmt.tokens(figures.tokens)} tokens · {fmt.cost(figures.cost)}
            </span>
          )}
          {marks.map((mark, i) => (
            <span key={i} class={`mark ${mark.kind}`} data-testid="trip-mark" data-kind={mark.kind}>
              {mark.label}
            </span>
          ))}
        </header>
      )}
      {props.children}
    </section>
  );
}
