/** `GET /api/meta` for every view: the agents, `--as`, and what this studio can do. */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { MetaResponse } from "../../api-types.js";

/** The studio's meta, once loaded (views render after it). */
export const MetaContext = createContext<MetaResponse>({ agents: [], canFork: false, canEval: false });

/** The studio's meta. */
export const useMeta = (): MetaResponse => useContext(MetaContext);
