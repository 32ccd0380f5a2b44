/** The studio page's entry: drops a `?token=` from the address (the server has set its cookie) and renders the app. */
import { render } from "preact";
import { App } from "./app.js";
import "./style.css";

const url = new URL(window.location.href);
if (url.searchParams.has("token")) {
  url.searchParams.delete("token");
  window.history.replaceState(null, "", url.pathname + url.search + url.hash);
}

render(<App />, document.getElementById("app")!);
