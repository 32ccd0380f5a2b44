/** Installs and builds what the stack needs, without starting it (CI's first step; `npm run stack` does it too). */
import { stackVersions } from "./environment.js";
import { ensureSystemPackages, ensureTemporalBuild, ensureUiBuild } from "./install.js";

const log = (line: string) => console.log(`stack: ${line}`);
const versions = stackVersions();
ensureSystemPackages(log);
ensureTemporalBuild(versions.temporal, log);
ensureUiBuild(versions.ui, log);
log(`temporal-server ${versions.temporal} and ui-server ${versions.ui} are ready`);
