/** The studio's frame: the navigation, the meta every view reads, and the view the hash names (`#/approvals`: the queue). */
import type { MetaResponse } from "../../api-types.js";
import { MetaContext } from "./meta.js";
import { href, useRoute } from "./route.js";
import { useFetch } from "./use-fetch.js";
import { RunsList } from "./runs/runs-list.js";
import { RunPage } from "./run/run-page.js";
import { ApprovalsPage } from "./approvals/approvals-page.js";
import { DatasetsPage } from "./data/datasets-page.js";
import { EvalsPage } from "./data/evals-page.js";
import { ComparePage } from "./data/compare-page.js";
import { SchedulesPage } from "./schedules/schedules-page.js";
import { ChatPage } from "./chat/chat-page.js";

const SECTIONS = [
  ["runs", "Runs"],
  ["schedules", "Schedules"],
  ["approvals", "Approvals"],
  ["chat", "Chat"],
  ["datasets", "Datasets"],
  ["evals", "Evals"],
  ["compare", "Compare"],
] as const;

/** The whole page. */
export function App() {
  const meta = useFetch<MetaResponse>("/api/meta");
  const route = useRoute();
  const section = route.path[0] ?? "runs";
  return (
    <MetaContext.Provider value={meta.value ?? { agents: [], canFork: false, canEval: false }}>
      <header class="top">
        <strong>durable-agent studio</strong>
        <nav>
          {SECTIONS.map(([key, label]) => (
            <a key={key} href={href(key)} class={section === key || (key === "runs" && section === "run") ? "on" : ""}>
              {label}
            </a>
          ))}
        </nav>
        <span class="as" data-testid="as">
          {meta.value?.as ? `deciding as ${meta.value.as}` : "read-only approvals (no --as)"}
        </span>
      </header>
      <main>
        {meta.error ? (
          <p class="error" data-testid="error">
            {meta.error}
          </p>
        ) : !meta.value ? (
          <p>Loading…</p>
        ) : (
          <View section={section} route={route} />
        )}
      </main>
    </MetaContext.Provider>
  );
}

function View({ section, route }: { section: string; route: ReturnType<typeof useRoute> }) {
  switch (section) {
    case "run":
      // Keyed by the run: another run's page starts afresh (its stream, its live text, its dialogs).
      return <RunPage key={route.path[1]} workflowId={route.path[1] ?? ""} />;
    case "approvals":
      return <ApprovalsPage />;
    case "chat":
      // Keyed by the chat: another agent or a new chat starts afresh.
      return (
        <ChatPage
          key={`${route.params.get("agent") ?? ""}/${route.params.get("id") ?? ""}`}
          agent={route.params.get("agent") ?? ""}
          chatId={route.params.get("id") ?? ""}
        />
      );
    case "schedules":
      return <SchedulesPage />;
    case "datasets":
      return <DatasetsPage />;
    case "evals":
      return <EvalsPage />;
    case "compare":
      return <ComparePage a={route.params.get("a") ?? ""} b={route.params.get("b") ?? ""} />;
    default:
      return <RunsList params={route.params} />;
  }
}
