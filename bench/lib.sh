# Shared helpers for bench/http.sh and bench/startup.sh. Sourced, not run.
# Expects: set -euo pipefail in the caller; ROOT = repository root.

BENCH_DIR="$ROOT/bench"
OUT_DIR="$BENCH_DIR/out"
export PATH="/opt/swift/usr/bin:$PATH"
export SWIFT_BACKTRACE=enable=no

log() { printf '[bench] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# apt-get install the given packages when one of the commands is missing.
# usage: need_pkgs "cmd1 cmd2" pkg1 pkg2...
need_pkgs() {
    local cmds=$1; shift
    local missing=0 c
    for c in $cmds; do
        command -v "$c" >/dev/null 2>&1 || [[ -x /usr/sbin/$c ]] || missing=1
    done
    [[ $missing == 0 ]] && return 0
    log "installing $* (apt-get)"
    [[ $(id -u) == 0 ]] || die "need root to apt-get install $*"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# Builds bench/out/firstok from bench/firstok.c when it is missing or older.
build_firstok() {
    mkdir -p "$OUT_DIR"
    FIRSTOK="$OUT_DIR/firstok"
    if [[ ! -x $FIRSTOK || $BENCH_DIR/firstok.c -nt $FIRSTOK ]]; then
        local cc
        cc=$(command -v cc || command -v gcc || command -v clang || true)
        [[ -n $cc ]] || die "no C compiler (cc/gcc/clang) for bench/firstok.c"
        "$cc" -O2 -Wall -o "$FIRSTOK" "$BENCH_DIR/firstok.c"
    fi
}

# Release build, static Swift stdlib (what the Dockerfile ships).
# SKIP_BUILD=1 reuses an existing binary; PINGTXT_BIN points at another one.
build_pingtxt() {
    if [[ -n ${PINGTXT_BIN:-} ]]; then
        BIN=$PINGTXT_BIN
    else
        if [[ ${SKIP_BUILD:-0} != 1 ]]; then
            log "swift build -c release --static-swift-stdlib --product pingtxt"
            (cd "$ROOT" && swift build -c release --static-swift-stdlib --product pingtxt 2>&1 | tail -n 3 >&2)
        fi
        BIN="$ROOT/.build/release/pingtxt"
    fi
    [[ -x $BIN ]] || die "no pingtxt binary at $BIN"
}

# wrk output -> "rps p99_ms non2xx errors"
parse_wrk() {
    awk '
        function ms(v) {
            if (v ~ /us$/) { sub(/us$/, "", v); return v / 1000 }
            if (v ~ /ms$/) { sub(/ms$/, "", v); return v + 0 }
            if (v ~ /m$/)  { sub(/m$/, "", v);  return v * 60000 }
            if (v ~ /s$/)  { sub(/s$/, "", v);  return v * 1000 }
            return v
        }
        /^Requests\/sec:/ { rps = $2 }
        $1 == "99%" { p99 = ms($2) }
        /Non-2xx or 3xx responses:/ { non2xx = $NF }
        /Socket errors:/ { errs = $0; sub(/.*Socket errors: */, "", errs); gsub(/ /, "", errs) }
        END { printf "%s %.3f %s %s\n", rps == "" ? 0 : rps, p99, non2xx == "" ? 0 : non2xx, errs == "" ? "-" : errs }
    '
}

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo "?"; }
threads_of() { awk '/^Threads:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo "?"; }

# Stops a pid we started (TERM, then KILL after 5 s) and reaps it.
stop_pid() {
    local pid=$1 i
    [[ -n $pid ]] || return 0
    kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

# Other processes using CPU right now (a shared machine skews every number):
# the second frame of a 0.5 s `top` sample, processes above 20% CPU that are
# not part of the bench.
busy_others() {
    local list
    list=$(top -b -n 2 -d 0.5 -w 256 2>/dev/null | awk '
        /^top -/ { frame++ }
        frame == 2 && $1 ~ /^[0-9]+$/ && $9 + 0 > 20 && $12 !~ /^(wrk|nginx|pingtxt|top|firstok)$/ { printf "%s(%s%%) ", $12, $9 }' | head -c 200)
    echo "busy others: ${list:-none}"
}
