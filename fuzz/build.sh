#!/usr/bin/env bash
# Builds the libFuzzer harness binary (Sources/Fuzz, every target in one
# binary) with coverage instrumentation in every module, and proves it.
#
#   fuzz/build.sh                 # -> .build-fuzz/release/Fuzz
#   SCRATCH=/tmp/fz fuzz/build.sh
#
# Why the extra -sanitize-coverage flags: with Swift 6.3 on Linux,
# `swift build --sanitize=fuzzer` instruments only the harness module, so
# libFuzzer fuzzes blind (~40 counters, "no interesting inputs"). Passing
# the coverage kinds explicitly to every swiftc invocation instruments every
# module (thousands of counters), with no hand-run compiler step.
#
# Portable on a fresh Debian: no gawk (mawk has no strtonum: the section
# size is converted by bash arithmetic), and no pipeline whose reader stops
# early (grep -m1 under pipefail made the writer exit 141).
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=${SCRATCH:-.build-fuzz}
flags=(--product Fuzz -c release -Xswiftc -DFUZZING --sanitize=fuzzer --sanitize=address
       -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp --scratch-path "$scratch")

log="$scratch/fuzz-build.log"
mkdir -p "$scratch"
if ! swift build "${flags[@]}" >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "fuzz/build.sh: swift build failed (log: $log)" >&2
  exit 1
fi

bin="$scratch/release/Fuzz"
# The size of the __sancov_cntrs section: one byte per instrumented edge.
size_hex=""
while read -r _ name size _; do
  if [ "$name" = "__sancov_cntrs" ]; then size_hex=$size; fi
done < <(objdump -h "$bin")
counters=$(( 16#${size_hex:-0} ))
echo "built $bin with $counters coverage counters"
if [ "$counters" -lt 5000 ]; then
  echo "fuzz/build.sh: the modules are not instrumented (fewer than 5,000 counters); see the comment at the top" >&2
  exit 1
fi
