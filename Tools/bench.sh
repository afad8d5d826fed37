#!/usr/bin/env bash
# gentable's benchmarks (results and how to read them in docs/performance.md).
#   Tools/bench.sh                              # gentable itself (issue 7): luban-shape, csv-1m, xlsx-200k, mixed-100
#   Tools/bench.sh --sets luban-shape --no-baseline --runs 5
#   Tools/bench.sh compile                      # the generated Rust crate (issue 14): rust-10, rust-100, rust-500
#   Tools/bench.sh compile --sets rust-10 --no-static
#   Tools/bench.sh load [--sets load-10,load-100] [--langs csharp,typescript] [--runs 5]
#                                               # the C#/TypeScript loaders (issue 15): load-10, load-100, load-500
# Builds the release gentable, generates the synthetic sets into target/bench-data/ on first use (seeded,
# deterministic; never committed), installs the Python baseline's packages into target/bench-venv (PyPI), then
# prints one Markdown table row per set. `compile` also builds the last gentable that printed rows as static
# literals (STATIC_REV, in a worktree under target/) to compare with, unless --no-static. Heavy: run it on a
# quiet machine, not in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# The last revision whose Rust crate carries every row as a `static` literal (before issue 14).
STATIC_REV=6fd2d91
cargo build --release --locked --bin gentable
harness() {
  CARGO_TARGET_DIR="$PWD/target/bench-harness" \
    cargo run --quiet --release --locked --manifest-path benches/harness/Cargo.toml --bin "$@"
}
if [ "${1:-}" = compile ]; then
  shift
  args=()
  static=1
  for a in "$@"; do
    if [ "$a" = --no-static ]; then static=0; else args+=("$a"); fi
  done
  if [ "$static" = 1 ]; then
    if [ ! -e target/bench-static/Cargo.toml ]; then
      git worktree add --detach target/bench-static "$STATIC_REV"
    fi
    CARGO_TARGET_DIR="$PWD/target/bench-static-target" \
      cargo build --release --locked --bin gentable --manifest-path target/bench-static/Cargo.toml
    args+=(--static-gentable "$PWD/target/bench-static-target/release/gentable")
  fi
  harness compile -- "${args[@]}"
elif [ "${1:-}" = load ]; then
  shift
  harness loadbench -- "$@"
else
  harness bench -- "$@"
fi
