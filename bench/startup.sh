#!/usr/bin/env bash
# Start-up time and idle memory of `pingtxt serve`.
#
#   bench/startup.sh                  # build, measure, print + save
#   REPEAT=20 SKIP_BUILD=1 bench/startup.sh
#
# (a) Time from fork+exec to the first 200 from GET /healthz, measured by
#     bench/firstok.c (a tight connect/GET loop, no sleeps), REPEAT times for:
#       fresh         new database, no PINGTXT_ADMIN_* (schema created)
#       fresh+admin   new database + PINGTXT_ADMIN_EMAIL/PASSWORD (the first
#                     admin is created, password hashed, before listening)
#       existing      the database of an earlier start (the common restart)
#     median / min / max in ms.
# (b) VmRSS of `pingtxt serve` (existing database): idle right after start-up,
#     idle 2 s later, then after wrk load on /healthz and /api/me
#     (LOAD_DURATION each, wrk -t2 -c64) and once more after 2 s of idle.
#
# Targets (issue): first 200 < 50 ms, idle RSS < 15 MB (15360 kB).
# Environment: REPEAT=10, LOAD_DURATION=10s, SKIP_BUILD=1, PINGTXT_BIN=path,
#              ACCESS_LOG=false to silence the per-request log during (b).
# Output: stdout and bench/out/startup-<date>.txt.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

REPEAT=${REPEAT:-10}
LOAD_DURATION=${LOAD_DURATION:-10s}
TARGET_MS=50
TARGET_RSS_KB=15360

need_pkgs "wrk" wrk
build_firstok
build_pingtxt

bench_begin startup HUB_PID

PORT=$("$FIRSTOK" port)
export PINGTXT_SERVER_LISTEN="127.0.0.1:$PORT"
unset PINGTXT_ADMIN_EMAIL PINGTXT_ADMIN_PASSWORD

# One start: prints "ms rss_kb"; the process is stopped afterwards.
# $1 = database path, $2 = "admin" to bootstrap the first admin.
one_start() {
    local db=$1 admin=${2:-} line
    mkdir -p "$(dirname "$db")"
    if [[ $admin == admin ]]; then
        line=$(FIRSTOK_STOP=1 PINGTXT_DATABASE_PATH="$db" PINGTXT_ADMIN_EMAIL=bench@example.com \
            PINGTXT_ADMIN_PASSWORD=bench-password-123 "$FIRSTOK" start "$PORT" 10000 -- "$BIN" serve 2>>"$TMP/serve.log")
    else
        line=$(FIRSTOK_STOP=1 PINGTXT_DATABASE_PATH="$db" "$FIRSTOK" start "$PORT" 10000 -- "$BIN" serve 2>>"$TMP/serve.log")
    fi
    awk '{ sub("ms=", "", $1); sub("rss_kb=", "", $3); print $1, $3 }' <<<"$line"
}

stats() {   # numbers on stdin -> "median min max"
    sort -g | awk '{ v[NR] = $1 } END {
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.1f %.1f %.1f\n", m, v[1], v[NR] }'
}

say "pingtxt hub start-up bench — $(date -u '+%Y-%m-%d %H:%M:%SZ')"
say "commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), binary $BIN ($(du -h "$BIN" | cut -f1)), $(nproc) cores, $(uname -r)"
say "loadavg $(cut -d' ' -f1-3 /proc/loadavg); $(busy_others)"
# Idle RSS rests on the text order (Package.swift, bench/text-order.sh): how
# much of Sources/pingtxt/text-order.txt this binary still has (a stripped
# binary has no names to check).
names=$(nm --defined-only "$BIN" 2>/dev/null | awk '{ print ".text." $NF }' | sort -u)
if [[ -n $names ]]; then
    order=$(grep '^\.text\.\$s' "$ROOT/Sources/pingtxt/text-order.txt" | sort -u)
    found=$(comm -12 <(echo "$names") <(echo "$order") | wc -l)
    say "text order: $found of $(echo "$order" | wc -l) Swift functions of Sources/pingtxt/text-order.txt are in this binary (regenerate it with bench/text-order.sh when this drops)"
fi
say ""
say "(a) fork+exec -> first 200 from /healthz, $REPEAT starts each (target < ${TARGET_MS} ms)"
say "$(printf '%-14s %9s %9s %9s %14s' case 'median ms' 'min ms' 'max ms' 'RSS@ready kB')"

# Warm the page cache for the binary and libraries first (not counted).
one_start "$TMP/warm/pingtxt.db" >/dev/null

for case in fresh fresh+admin existing; do
    : >"$TMP/times" ; : >"$TMP/rss"
    for i in $(seq "$REPEAT"); do
        case $case in
            fresh)       r=$(one_start "$TMP/fresh-$i/pingtxt.db") ;;
            fresh+admin) r=$(one_start "$TMP/admin-$i/pingtxt.db" admin) ;;
            existing)    r=$(one_start "$TMP/admin-1/pingtxt.db") ;;
        esac
        [[ -n $r ]] || { tail -n 20 "$TMP/serve.log" >&2; die "start $case #$i failed"; }
        echo "${r% *}" >>"$TMP/times"
        echo "${r#* }" >>"$TMP/rss"
    done
    read -r med min max < <(stats <"$TMP/times")
    read -r rss_med _ _ < <(stats <"$TMP/rss")
    verdict=$(awk -v m="$med" -v t="$TARGET_MS" 'BEGIN { print (m < t) ? "ok" : "OVER TARGET" }')
    say "$(printf '%-14s %9s %9s %9s %14.0f  %s' "$case" "$med" "$min" "$max" "$rss_med" "$verdict")"
done

# (b) RSS over a life: start on the existing database, idle, load, idle.
say ""
say "(b) VmRSS of pingtxt serve (existing database; target idle < ${TARGET_RSS_KB} kB)"
DB="$TMP/admin-1/pingtxt.db"
export PINGTXT_DATABASE_PATH="$DB"
TOKEN=$("$BIN" token create --email bench@example.com --scope read --name startup-bench 2>/dev/null)
[[ $TOKEN == pmk_* ]] || die "token create failed"
if [[ ${ACCESS_LOG:-} == false ]]; then export PINGTXT_SERVER_ACCESS_LOG=false; fi
"$BIN" serve >>"$TMP/serve.log" 2>&1 &
HUB_PID=$!
"$FIRSTOK" wait "$PORT" 10000 || die "serve did not answer"
rss_line() { printf '%-34s %8s kB  (%s threads)' "$1" "$(rss_kb "$HUB_PID")" "$(threads_of "$HUB_PID")"; }
say "$(rss_line 'right after first 200')"
sleep 2
IDLE=$(rss_kb "$HUB_PID")
say "$(rss_line 'idle, 2 s after start')"
wrk -t2 -c64 -d"$LOAD_DURATION" "http://127.0.0.1:$PORT/healthz" >/dev/null
say "$(rss_line "after $LOAD_DURATION wrk on /healthz")"
wrk -t2 -c64 -d"$LOAD_DURATION" -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/me" >/dev/null
say "$(rss_line "after $LOAD_DURATION wrk on /api/me")"
sleep 2
AFTER=$(rss_kb "$HUB_PID")
say "$(rss_line 'idle, 2 s after the load')"
awk -v s="$IDLE" -v t="$TARGET_RSS_KB" 'BEGIN { printf "idle RSS after start-up: %.1f MB (%s)\n", s / 1024, (s < t) ? "ok" : "OVER TARGET" }' | tee -a "$OUT"
awk -v s="$AFTER" -v t="$TARGET_RSS_KB" 'BEGIN { printf "idle RSS after load:     %.1f MB (%s)\n", s / 1024, (s < t) ? "ok" : "OVER TARGET" }' | tee -a "$OUT"
say "loadavg $(cut -d' ' -f1-3 /proc/loadavg); $(busy_others)"
say "access log during (b): ${PINGTXT_SERVER_ACCESS_LOG:-default (on)}"
say ""
say "saved: $OUT"
