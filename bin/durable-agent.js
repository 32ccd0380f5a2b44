#!/usr/bin/env node
// The `durable-agent` command: the built CLI (dist/cli), run with plain node.
import { main } from "../dist/cli/index.js";

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(2);
  },
);
