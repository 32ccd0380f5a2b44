/**
 * A run in progress, live: an `EventSource` on `/api/runs/:id/stream` (the library's own SSE, as
 * `handle.toSSEResponse()` writes it: one named event per run event). Answer text grows from
 * `text.delta`s; every durable event asks the page to load the run again, so the conversation is
 * always the server's, with the streaming answer on top. The text is kept by run: another run's
 * page never shows it, and leaving a run closes its stream.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { segment } from "../api.js";

/** The event types that change the recorded conversation (the page reloads the run on them). */
const DURABLE = [
  "model.answered",
  "tool.started",
  "tool.finished",
  "reprompt",
  "backstop",
  "approval",
  "subagent.started",
  "subagent.finished",
  "handoff",
  "remote.started",
  "fork",
  "run.stopped",
  "budget.used-up",
  "message.failed",
];

interface Delta {
  trip: number;
  attempt: number;
  text: string;
  workflowId?: string;
}

/** What the stream gives the page: answer text by trip, and whether the stream is open. */
export interface LiveRun {
  text: Map<number, string>;
  connected: boolean;
}

/**
 * Follows the run `workflowId` while `active`; `onChange` is called (at most every 250 ms) when
 * the recorded conversation changed, and once when the run finishes.
 */
export function useLiveRun(workflowId: string, active: boolean, onChange: () => void): LiveRun {
  const [live, setLive] = useState<{ workflowId: string; text: Map<number, string> }>({ workflowId, text: new Map() });
  const [connected, setConnected] = useState(false);
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    if (!active) return;
    setLive({ workflowId, text: new Map() });
    // This run's text only: an update that comes after the page left the run starts from nothing of another's.
    const setText = (update: (old: Map<number, string>) => Map<number, string>) =>
      setLive((old) => ({ workflowId, text: update(old.workflowId === workflowId ? old.text : new Map()) }));
    const source = new EventSource(`/api/runs/${segment(workflowId)}/stream`);
    const attempts = new Map<number, number>();
    let timer: number | undefined;
    const reload = () => {
      if (timer !== undefined) return;
      timer = window.setTimeout(() => {
        timer = undefined;
        changed.current();
      }, 250);
    };
    const own = (event: { workflowId?: string }) => !event.workflowId || event.workflowId === workflowId;
    source.onopen = () => setConnected(true);
    source.onerror = () => setConnected(source.readyState === EventSource.OPEN);
    source.addEventListener("text.delta", (message) => {
      const delta = JSON.parse((message as MessageEvent<string>).data) as Delta;
      if (!own(delta)) return;
      const seen = attempts.get(delta.trip) ?? delta.attempt;
      if (delta.attempt < seen) return;
      attempts.set(delta.trip, delta.attempt);
      setText((old) => {
        const next = new Map(old);
        next.set(delta.trip, (delta.attempt > seen ? "" : (old.get(delta.trip) ?? "")) + delta.text);
        return next;
      });
    });
    source.addEventListener("trip.retry", (message) => {
      const retry = JSON.parse((message as MessageEvent<string>).data) as Delta;
      if (!own(retry)) return;
      attempts.set(retry.trip, retry.attempt);
      setText((old) => new Map([...old].filter(([trip]) => trip !== retry.trip)));
    });
    for (const type of DURABLE) source.addEventListener(type, reload);
    source.addEventListener("run.finished", (message) => {
      if (!own(JSON.parse((message as MessageEvent<string>).data) as Delta)) return;
      source.close();
      setConnected(false);
      window.clearTimeout(timer);
      timer = undefined;
      changed.current();
    });
    return () => {
      source.close();
      window.clearTimeout(timer);
      setConnected(false);
    };
  }, [workflowId, active]);

  const own = live.workflowId === workflowId;
  return { text: own ? live.text : NO_TEXT, connected: own && connected };
}

const NO_TEXT: Map<number, string> = new Map();
