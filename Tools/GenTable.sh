#!/usr/bin/env bash
# Generate every output of the project (FunnyPitch's GenTable.sh workflow):
#   Table/*.csv|xlsx + schema/*.schema.json  ->  generated/{rust,csharp,ts,data}
# Usage: Tools/GenTable.sh [gentable build options, e.g. --check, --message-format json]
# Exit codes: 0 ok, 1 data errors (generated/ untouched) or stale files with --check, 2 configuration errors.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --quiet --release --locked -- build "$@"
