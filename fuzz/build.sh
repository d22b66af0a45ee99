#!/usr/bin/env bash
# Builds the libFuzzer harness for the HTTP request parser with coverage
# instrumentation in the HTTP module itself.
#
# Why the extra step: with Swift 6.3.1 on Linux, `swift build --sanitize=fuzzer`
# passes -sanitize=fuzzer to every module, yet the HTTP module's objects come
# out without SanitizerCoverage (only the harness is instrumented, ~15
# counters, so libFuzzer fuzzes blind). Running the very same swiftc command
# by hand instruments it. So: build, re-run the HTTP module's compile command
# as SwiftPM printed it, build again (which relinks), and check the counters.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=${SCRATCH:-.build-fuzz}
flags=(--product FuzzHTTPParser -c release -Xswiftc -DFUZZING --sanitize=fuzzer --sanitize=address --scratch-path "$scratch")

swift build "${flags[@]}" >/dev/null
touch Sources/HTTP/Parser/HTTPRequestParser.swift
cmd=$(swift build "${flags[@]}" -v 2>&1 | grep -E -m1 '^/\S*swiftc -module-name HTTP ')
bash -c "${cmd/ -parseable-output / }" >/dev/null 2>&1
swift build "${flags[@]}" >/dev/null

bin="$scratch/release/FuzzHTTPParser"
counters=$(objdump -h "$bin" | awk '$2 == "__sancov_cntrs" { print strtonum("0x" $3) }')
echo "built $bin with ${counters:-0} coverage counters"
if [ "${counters:-0}" -lt 500 ]; then
  echo "fuzz/build.sh: the HTTP module is not instrumented; see the comment at the top" >&2
  exit 1
fi
