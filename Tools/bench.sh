#!/usr/bin/env bash
# gentable's benchmark (issue 7; results and how to read them in docs/performance.md).
#   Tools/bench.sh                              # every set: luban-shape, csv-1m, xlsx-200k, mixed-100
#   Tools/bench.sh --sets luban-shape --no-baseline --runs 5
# Builds the release gentable, generates the synthetic sets into target/bench-data/ on first use (seeded,
# deterministic; never committed), installs the Python baseline's packages into target/bench-venv (PyPI), then
# prints one Markdown table row per set. Heavy: run it on a quiet machine, not in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
cargo build --release --locked --bin gentable
CARGO_TARGET_DIR="$PWD/target/bench-harness" \
  cargo run --quiet --release --locked --manifest-path benches/harness/Cargo.toml --bin bench -- "$@"
