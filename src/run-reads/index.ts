/**
 * Reads of a run over the Temporal client, below every side that reads runs: the activities (the
 * run's pages, by its `RunRef`), the streaming wing and the client (a run's complete result, its
 * typed error), the lists that page runs (one visibility page), and the lazily loaded Temporal SDK
 * modules they use.
 */
export { contextFor, readRunPart, runRefOf, type RunRef } from "./run-reader.js";
export { completeResult } from "./complete-result.js";
export { toRunError } from "./run-error.js";
export { decodePageToken, encodePageToken, listExecutionsPage } from "./visibility-page.js";
export { loadPayloadDecoding, loadTemporalClient, loadTemporalCommon, loadTemporalProto } from "./temporal-sdk.js";
