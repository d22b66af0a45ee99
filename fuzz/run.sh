#!/usr/bin/env bash
# Runs every fuzz target of the binary fuzz/build.sh made, each for SECONDS
# (default 30), from its seeds in fuzz/corpus/<target>. Fails on a crash
# (the input is kept as fuzz-artifacts/<target>/crash-*) or when a target's
# coverage stays below MIN_COV edges (it would be fuzzing blind).
#
#   fuzz/build.sh && fuzz/run.sh
#   SECONDS_EACH=600 TARGETS="dns smtp" fuzz/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${FUZZ_BIN:-${SCRATCH:-.build-fuzz}/release/Fuzz}
each=${SECONDS_EACH:-30}
min_cov=${MIN_COV:-40}
targets=${TARGETS:-"http-request http-response dns smtp toml json cron tzif"}
[ -x "$bin" ] || { echo "fuzz/run.sh: $bin missing; run fuzz/build.sh first" >&2; exit 1; }

failed=0
printf '%-14s %10s %8s %8s %8s  %s\n' target executions cov ft corpus result
for t in $targets; do
  work="fuzz-corpus/$t" art="fuzz-artifacts/$t"
  mkdir -p "$work" "$art"
  log="$art/run.log"
  rc=0
  # The Swift backtracer trips ASan when it reads the crashed process memory;
  # without it a trap is reported by libFuzzer as a deadly signal.
  FUZZ_TARGET=$t SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$bin" "$work" "fuzz/corpus/$t" \
    -max_total_time="$each" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$art/" -print_final_stats=1 \
    >"$log" 2>&1 || rc=$?
  # The last status line: "#N  DONE  cov: C ft: F corp: K/…".
  execs="" cov="" ft="" corp=""
  while read -r line; do
    case $line in
      "#"*"cov: "*)
        set -- $line
        execs=${1#\#}
        while [ $# -gt 1 ]; do
          case $1 in cov:) cov=$2 ;; ft:) ft=$2 ;; corp:) corp=${2%%/*} ;; esac
          shift
        done ;;
    esac
  done <"$log"
  result=ok
  if [ "$rc" -ne 0 ]; then
    result="CRASH (exit $rc; $(ls "$art" | grep -v run.log | tr '\n' ' '))"
    failed=1
  elif [ "${cov:-0}" -lt "$min_cov" ]; then
    result="BLIND (cov ${cov:-0} < $min_cov)"
    failed=1
  fi
  printf '%-14s %10s %8s %8s %8s  %s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result"
  if [ "$rc" -ne 0 ]; then grep -E "Precondition|Fatal|ERROR|SUMMARY" "$log" | head -n 5 >&2 || true; fi
done
exit $failed
