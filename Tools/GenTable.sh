#!/usr/bin/env bash
# Generate every output of the project (FunnyPitch's GenTable.sh workflow):
#   Table/*.csv|xlsx + schema/*.schema.json  ->  generated/{rust,csharp,ts,data}
# Usage: Tools/GenTable.sh [gentable build options, e.g. --check, --message-format json]
# Exit codes: 0 ok, 1 data errors (generated/ untouched) or stale files with --check, 2 configuration errors.
set -euo pipefail
cd "$(dirname "$0")/.."
# The first run compiles gentable (minutes, with --quiet): say so in a terminal, never into a pipe.
if [ -t 2 ] && [ ! -x "${CARGO_TARGET_DIR:-target}/release/gentable" ]; then
  echo "GenTable.sh: compiling gentable in release mode first (5-15 minutes on 2 cores; later runs take under a second)" >&2
fi
exec cargo run --quiet --release --locked -- build "$@"
