/** What the library's HTTP servers share: the check of where a state-changing request comes from. */
export { refusedSource, type RequestSource, type RequestSourceRules } from "./request-source.js";
