#!/usr/bin/env bash
# The test command (README): installs what the tests need on a fresh Debian machine, then runs every test.
#  - mono-mcs + mono-runtime (Debian) to compile and run the generated C#;
#  - TypeScript from tests/conformance/package-lock.json (npm ci) to compile the generated TypeScript;
#  - chromium + a CJK font (Debian) and playwright-core from tests/browser/package-lock.json (npm ci) for the
#    report's headless-browser test (tests/report.rs; playwright-core drives Debian's chromium, it downloads
#    no browser);
#  - cargo test for gentable, then each example's acceptance crate (they depend only on generated code).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# gentable speaks Chinese under a zh locale (--lang, LANG): the golden outputs are English, so the run is too
# (the tests that check Chinese ask for it with --lang zh or their own LANG).
export LC_ALL=C.UTF-8

# What is missing, installed with one `apt-get update` (a fresh machine needs both groups).
packages=()
if ! command -v mcs >/dev/null 2>&1 || ! command -v mono >/dev/null 2>&1; then
  packages+=(mono-mcs mono-runtime)
fi
if ! command -v chromium >/dev/null 2>&1 || ! fc-list 2>/dev/null | grep -qi "wenquanyi"; then
  packages+=(chromium fonts-wqy-microhei)
fi
if [ ${#packages[@]} -gt 0 ]; then
  echo "== installing ${packages[*]} (Debian)"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi
if [ -f tests/browser/package-lock.json ]; then
  echo "== installing playwright-core (npm ci, pinned by tests/browser/package-lock.json)"
  (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
fi
if [ -f tests/conformance/package-lock.json ]; then
  echo "== installing TypeScript (npm ci, pinned by tests/conformance/package-lock.json)"
  (cd tests/conformance && npm ci --no-audit --no-fund --loglevel=error)
fi

# Every test runner's output also goes to a log, so the run can close with one total line.
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

echo "== cargo test (gentable; ${SECONDS}s so far)"
cargo test --locked --no-fail-fast 2>&1 | tee -a "$log"

for acc in examples/*/acceptance/Cargo.toml; do
  [ -f "$acc" ] || continue
  echo "== cargo test --manifest-path $acc (${SECONDS}s so far)"
  CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}/examples" cargo test --manifest-path "$acc" --tests 2>&1 | tee -a "$log"
done

# Total over every `test result:` line (all runners above succeeded, or `set -e` stopped the script).
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
echo "== the test command took ${SECONDS}s"
