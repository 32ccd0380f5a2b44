#!/usr/bin/env bash
# The fresh path: the README's two commands, exactly as its first lines give them, in a fresh clone,
# with an empty HOME (and npm cache), no TEMPORAL_CLI_PATH, and no `temporal` or `chromium` that
# can run (each one on the PATH is covered with /dev/null in a private mount namespace). Whatever
# the commands need, they must install themselves. Prints how long each took. The rest of the
# environment passes through: CI's DURABLE_AGENT_TEST_WORKERS (test files run at once by `npm
# test`, vitest.config.ts) among it.
set -euo pipefail
if [ -z "${FRESH_NS:-}" ]; then
  found=$(for b in temporal chromium chromium-browser google-chrome; do type -ap "$b"; done 2>/dev/null | sort -u || true)
  binds=""
  for f in $found; do binds+="mount --bind /dev/null '$f' && "; done
  exec unshare --mount --propagation private bash -c "${binds} FRESH_NS=1 exec bash '$0'"
fi

src=$(cd "$(dirname "$0")/.." && pwd)
w=$(mktemp -d /tmp/fresh-path-XXXXXX)
# FRESH_PATH_NPM_CACHE_OUT: where to leave the npm cache the commands filled (CI's later `npm ci`
# reads it instead of downloading every package again).
trap 'if [ -n "${FRESH_PATH_NPM_CACHE_OUT:-}" ] && [ -d "$w/npm-cache" ]; then rm -rf "$FRESH_PATH_NPM_CACHE_OUT"; mv "$w/npm-cache" "$FRESH_PATH_NPM_CACHE_OUT"; fi; rm -rf "$w"' EXIT
git clone -q "$src" "$w/app"
cd "$w/app"
# pyenv's shims find their Pythons through PYENV_ROOT, which defaults to a folder in HOME.
export PYENV_ROOT="${PYENV_ROOT:-$HOME/.pyenv}" HOME="$w/home" npm_config_cache="$w/npm-cache"
mkdir -p "$HOME"
unset TEMPORAL_CLI_PATH TEMPORAL_ADDRESS CHROMIUM_PATH OPENAI_API_KEY OPENAI_BASE_URL DURABLE_AGENT_CACHE_DIR
for f in $(type -ap temporal chromium chromium-browser google-chrome 2>/dev/null || true); do
  if [ -x "$f" ]; then echo "fresh path: $f is still runnable"; exit 1; fi
done

# The README's first two command lines, less their comments.
mapfile -t commands < <(awk '/^```sh/{block=1; next} block && /^```/{exit} block' README.md | sed 's/ *#.*$//' | grep -v '^$')
[ "${#commands[@]}" -eq 2 ] || { echo "README's first block should hold two commands, has ${#commands[@]}"; exit 1; }
for command in "${commands[@]}"; do
  echo "── fresh machine: $command"
  start=$(date +%s)
  bash -c "$command"
  echo "── fresh machine: '$command' took $(( $(date +%s) - start )) s"
done
