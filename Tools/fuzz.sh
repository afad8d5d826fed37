#!/usr/bin/env bash
# Coverage-guided fuzzing of gentable's readers with libFuzzer, on the stable toolchain (docs/fuzzing.md).
#
#   Tools/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]      default: 60 seconds each of cell csv workbook schema
#   GENTABLE_FUZZ_RUNS=N Tools/fuzz.sh [SECONDS] ...    a reproducible run (what .ci/run does): N inputs per
#                                                       target from libFuzzer seed GENTABLE_FUZZ_SEED (default 1)
#                                                       and the seed corpus only, SECONDS as a cap
#
# The targets are built with sanitizer-coverage instrumentation through stable -C flags (what `cargo fuzz`
# does, minus AddressSanitizer, which needs nightly and which safe Rust does not need), with overflow checks
# and debug assertions on. Each run starts from the target's seed corpus (the repository's own tables,
# workbooks and schemas, written by the target itself) plus what earlier runs found
# (target/fuzz/corpus/<target>/, kept between runs on one machine). A crash stops the script with exit code 1
# and leaves the input in target/fuzz/artifacts/<target>/: copy it to fuzz/regressions/<target>/ once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(cell csv workbook schema)

out="${CARGO_TARGET_DIR:-$PWD/target}/fuzz"
export CARGO_TARGET_DIR="$out/build"
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing"
# An explicit --target keeps the instrumentation off build scripts and proc macros (as cargo fuzz does).
host="$(rustc -vV | sed -n 's/^host: //p')"
echo "== building the fuzz targets (fuzz/, release, instrumented)"
# Not --locked: fuzz/Cargo.lock follows the main crate's dependencies, which change without it (cargo adds
# what is new and keeps every pinned version it can).
cargo build --release --target "$host" --manifest-path fuzz/Cargo.toml --bins
echo "== built in ${SECONDS}s"

status=0
for t in "${targets[@]}"; do
  corpus="$out/corpus/$t"
  repro=()
  if [ -n "${GENTABLE_FUZZ_RUNS:-}" ]; then
    # The same inputs on every machine: a fixed libFuzzer seed, a number of runs instead of a time, and a
    # fresh corpus (a corpus kept from earlier runs would change the sequence).
    corpus="$out/corpus-repro/$t"
    rm -rf "$corpus"
    repro=(-runs="$GENTABLE_FUZZ_RUNS" -seed="${GENTABLE_FUZZ_SEED:-1}")
  fi
  seeds="$out/seeds/$t"
  artifacts="$out/artifacts/$t"
  rm -rf "$seeds"
  mkdir -p "$corpus" "$seeds" "$artifacts"
  echo "== fuzzing $t for ${GENTABLE_FUZZ_RUNS:+$GENTABLE_FUZZ_RUNS inputs (seed ${GENTABLE_FUZZ_SEED:-1}), at most }${secs}s"
  # -rss_limit_mb: every input must stay within bounded memory; -timeout: and bounded time.
  if ! GENTABLE_FUZZ_SEEDS="$seeds" "$CARGO_TARGET_DIR/$host/release/$t" \
      -max_total_time="$secs" "${repro[@]}" -rss_limit_mb=1024 -timeout=10 -max_len=65536 \
      -artifact_prefix="$artifacts/" -print_final_stats=1 "$corpus" "$seeds" 2>"$out/$t.log"; then
    tail -n 60 "$out/$t.log"
    echo "fuzz target $t crashed: see $artifacts/"
    status=1
  else
    grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE)" "$out/$t.log" || true
    echo "fuzz $t: ${GENTABLE_FUZZ_RUNS:+$GENTABLE_FUZZ_RUNS inputs, at most }${secs}s without a crash"
  fi
done
exit $status
