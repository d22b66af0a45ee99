#!/usr/bin/env bash
# Instructions per request of the hub's hottest routes (/healthz, /api/me
# with a bearer token, a heartbeat ping), counted exactly by valgrind's
# callgrind, for this build and a reference build in the same run.
#
#   BASE_BIN=/path/to/an/earlier/pingtxt bench/instructions.sh
#   BASE_REV=HEAD~1 bench/instructions.sh     # builds that revision (~10 min)
#   SKIP_BUILD=1 bench/instructions.sh        # this build alone
#
# Why: on this machine a throughput run drifts by ±20 % within minutes
# (bench/README.md, "Alternating windows"), so a change worth 2 % cannot be
# seen in req/s. Callgrind counts every instruction the process runs, on
# every thread, whatever the machine is doing: two runs of one build agree
# within about 1 %. What it does not count: the kernel (the syscalls, the
# loopback's delivery), cache misses, and contention between cores, which
# valgrind removes by running one thread at a time. So it ranks user-space
# changes; whether they matter is still for http.sh and ping.sh to say.
#
# Each route: the hub under callgrind, wrk for WARMUP seconds, counters
# zeroed, wrk for DURATION seconds, counters dumped; instructions of the
# window / requests wrk completed in it. Background work in the window
# (checkpoints, sweeps) is counted too; it is a few instructions a request.
# A ping's count includes its share of a group commit, and how many pings
# share one depends on how valgrind interleaves threads: the table gives
# writes per commit beside it (reference / this build).
# A BASE_REV build is kept as bench/out/pingtxt-<commit> for later runs.
# Environment: DURATION=10, WARMUP=3, CONNECTIONS=4, SKIP_BUILD=1,
# PINGTXT_BIN=path (this build), BASE_BIN=path or BASE_REV=git revision.
# Needs valgrind and wrk (installed if missing). ~2 min per build.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

DURATION=${DURATION:-10}
WARMUP=${WARMUP:-3}
CONNECTIONS=${CONNECTIONS:-4}

need_pkgs "valgrind callgrind_control wrk" valgrind wrk
build_firstok
build_pingtxt

bench_begin instructions HUB_PID
say "pingtxt instructions per request under callgrind — $(date -u '+%Y-%m-%d %H:%M:%SZ')"
say "wrk -t1 -c$CONNECTIONS, ${WARMUP}s warm-up then ${DURATION}s counted per route; user space of every thread"

# The reference build, if any.
BASE=""
if [[ -n ${BASE_BIN:-} ]]; then
    BASE=$BASE_BIN
elif [[ -n ${BASE_REV:-} ]]; then
    # Built once per commit and kept in bench/out/ for the next run.
    sha=$(git -C "$ROOT" rev-parse --short=12 "$BASE_REV^{commit}" 2>/dev/null) || die "no revision $BASE_REV"
    BASE="$OUT_DIR/pingtxt-$sha"
    if [[ ! -x $BASE ]]; then
        log "building $BASE_REV ($sha) in a worktree (release, static stdlib)"
        git -C "$ROOT" worktree add --detach "$TMP/base-src" "$sha" >/dev/null 2>&1 || die "no worktree for $sha"
        remove_worktree() { git -C "$ROOT" worktree remove --force "$TMP/base-src" >/dev/null 2>&1 || true; }
        bench_on_exit remove_worktree
        (cd "$TMP/base-src" && swift build -c release --static-swift-stdlib --product pingtxt 2>&1 | tail -n 2 >&2)
        cp "$TMP/base-src/.build/release/pingtxt" "$BASE"
    fi
fi
[[ -z $BASE || -x $BASE ]] || die "no reference binary at $BASE"

# valgrind 3.19 cannot read this toolchain's DWARF 5: profile copies
# without debug information (the symbol table stays).
PORT=$("$FIRSTOK" port)

# count LABEL BINARY: one table row per route for that binary, on stdout
# as "label route instructions requests".
count() {
    local label=$1 bin="$TMP/$1-pingtxt" dir="$TMP/$1"
    strip --strip-debug -o "$bin" "$2"
    hub_env "$PORT" "$dir/db"
    # First start without valgrind: the database, the admin, a token.
    "$bin" serve >>"$dir.log" 2>&1 &
    HUB_PID=$!
    "$FIRSTOK" wait "$PORT" 20000 || die "$label: the hub did not answer"
    local token ping_url
    token=$("$bin" token create --email "$PINGTXT_ADMIN_EMAIL" --scope write --name instructions 2>/dev/null)
    [[ $token == pmk_* ]] || die "$label: token create failed"
    ping_url=$(python3 "$ROOT/bench/api.py" heartbeat "http://127.0.0.1:$PORT" "$token" 1 60 60)
    stop_pid "$HUB_PID"; HUB_PID=""

    valgrind --tool=callgrind --callgrind-out-file="$dir/cg.%p" "$bin" serve >>"$dir.log" 2>&1 &
    HUB_PID=$!
    "$FIRSTOK" wait "$PORT" 120000 || { tail -n 20 "$dir.log" >&2; die "$label: the hub did not answer under valgrind"; }
    local route url n=0
    for route in /healthz /api/me ping; do
        local args=()
        case $route in
            /healthz) url="http://127.0.0.1:$PORT/healthz" ;;
            /api/me) url="http://127.0.0.1:$PORT/api/me"; args=(-H "Authorization: Bearer $token") ;;
            ping) url=$ping_url ;;
        esac
        wrk -t1 -c"$CONNECTIONS" -d"${WARMUP}s" "${args[@]}" "$url" >/dev/null
        local commits0 writes0 commits1 writes1
        commits0=$(batch_metric "$token" pingtxt_db_batches_total)
        writes0=$(batch_metric "$token" pingtxt_db_batched_writes_total)
        callgrind_control --zero "$HUB_PID" >/dev/null 2>&1
        local out
        out=$(wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" "${args[@]}" "$url")
        callgrind_control --dump "$HUB_PID" >/dev/null 2>&1
        commits1=$(batch_metric "$token" pingtxt_db_batches_total)
        writes1=$(batch_metric "$token" pingtxt_db_batched_writes_total)
        n=$((n + 1))
        local dump
        dump=$(ls -t "$dir"/cg.*."$n" 2>/dev/null | head -n 1)
        [[ -n $dump ]] || die "$label: no callgrind dump for $route"
        local instructions requests
        instructions=$(awk '/^summary:/ { print $2; exit }' "$dump")
        requests=$(wrk_requests <<<"$out")
        [[ $requests -gt 0 ]] || die "$label: wrk completed no request on $route"
        printf '%s %s %s %s %s %s\n' "$label" "$route" "$instructions" "$requests" \
            "$((writes1 - writes0))" "$((commits1 - commits0))"
    done
    stop_pid "$HUB_PID"; HUB_PID=""
}

# A counter of the batch writer from /metrics (read after the window's dump,
# so the request that reads it is not counted).
batch_metric() {   # TOKEN NAME
    curl -fsS -H "Authorization: Bearer $1" "http://127.0.0.1:$PORT/metrics" | metric_value "$2"
}

mkdir -p "$TMP/this" "$TMP/base"
{
    count this "$BIN"
    [[ -z $BASE ]] || count base "$BASE"
} >"$TMP/rows.txt"

say ""
say "this build: $BIN${BASE:+; reference: $BASE${BASE_REV:+ ($BASE_REV)}}"
# Writes per commit: a ping's cost includes its share of a group commit,
# and how many pings share one depends on how valgrind interleaves the
# threads, so the ping rows say it (compare rows with similar batches).
awk -v base="$BASE" '
    function batch(w, c) { return c > 0 ? sprintf("%.1f", w / c) : "-" }
    { per = $3 / $4
      if ($1 == "this") { this[$2] = per; req[$2] = $4; tb[$2] = batch($5, $6); order[++n] = $2 }
      else { ref[$2] = per; rb[$2] = batch($5, $6) } }
    END {
        if (base != "") printf "%-10s %14s %14s %8s %10s %16s\n", "route", "reference", "this build", "ratio", "requests", "writes/commit"
        else printf "%-10s %14s %10s %16s\n", "route", "instr/req", "requests", "writes/commit"
        for (i = 1; i <= n; i++) {
            r = order[i]
            if (base != "") printf "%-10s %14.0f %14.0f %7.3fx %10d %16s\n", r, ref[r], this[r], this[r] / ref[r], req[r], rb[r] " / " tb[r]
            else printf "%-10s %14.0f %10d %16s\n", r, this[r], req[r], tb[r]
        }
    }' "$TMP/rows.txt" | tee -a "$OUT"
say "saved: $OUT"
