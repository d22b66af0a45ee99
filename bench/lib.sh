# Shared helpers for the bench/*.sh scripts. Sourced, not run.
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
    local list skip=" "
    declare -F pg_own_pids >/dev/null && skip=" $(pg_own_pids | tr '\n' ' ') "
    list=$(top -b -n 2 -d 0.5 -w 256 2>/dev/null | awk -v skip="$skip" '
        /^top -/ { frame++ }
        frame == 2 && $1 ~ /^[0-9]+$/ && $9 + 0 > 20 && index(skip, " " $1 " ") == 0 && $12 !~ /^(wrk|nginx|pingtxt|top|firstok|hubd|CheckBench|prometheus-bla.*)$/ { printf "%s(%s%%) ", $12, $9 }' | head -c 200)
    echo "busy others: ${list:-none}"
}

# ---- helpers for scheduler.sh and ping.sh -----------------------------------

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# utime+stime of a pid in clock ticks (fields 14 and 15 of /proc/PID/stat,
# counted after the ")" that ends the command name).
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
CLK_TCK=$(getconf CLK_TCK 2>/dev/null || echo 100)

# Starts nginx serving $1/www (files written by the caller) on 127.0.0.1:$2,
# config and logs under $1/nginx. Sets NGINX_PID. Needs FIRSTOK.
start_nginx() {
    local dir=$1 port=$2 ngx
    ngx=$(command -v nginx || echo /usr/sbin/nginx)
    chmod 755 "$dir"
    mkdir -p "$dir/www" "$dir/nginx"
    chmod -R a+rX "$dir/www"
    cat >"$dir/nginx/nginx.conf" <<NGINXEOF
worker_processes auto;
daemon off;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 65;
    keepalive_requests 1000000;
    client_body_temp_path $dir/nginx/body;
    proxy_temp_path $dir/nginx/proxy;
    fastcgi_temp_path $dir/nginx/fastcgi;
    uwsgi_temp_path $dir/nginx/uwsgi;
    scgi_temp_path $dir/nginx/scgi;
    server {
        listen 127.0.0.1:$port backlog=4096;
        root $dir/www;
        default_type application/json;
        location / { }
    }
}
NGINXEOF
    "$ngx" -e "$dir/nginx/error.log" -p "$dir/nginx" -c "$dir/nginx/nginx.conf" &
    NGINX_PID=$!
    "$FIRSTOK" wait "$port" 5000 "${3:-/healthz}" || { cat "$dir/nginx/error.log" >&2; die "nginx did not answer"; }
}

# One Prometheus sample from a /metrics text on stdin: metric_value 'name{labels}'
# Reads to the end (no early `exit`): a writer still sending, such as curl
# in `curl … | metric_value`, would otherwise die of SIGPIPE and, under
# pipefail, stop the script (curl: (23) Failed writing body).
metric_value() { awk -v m="$1" '!found && index($0, m " ") == 1 { print $NF; found = 1 } END { if (!found) print "?" }'; }

# /metrics text -> the lateness histogram's cumulative buckets, one "le count"
# line each (pingtxt_check_lateness_seconds, fixed bounds).
lateness_buckets() {
    awk -F'[{}" ]+' '/^pingtxt_check_lateness_seconds_bucket\{/ { print $3, $NF }'
}

# Two lateness_buckets outputs (files: at the window's start, at its end) and
# a per-mille rank -> the smallest bound holding that share of the window's
# samples, in ms ("≤ 1000"), or "-" with no samples.
lateness_window() {
    awk -v q="$3" 'NR == FNR { start[$1] = $2; next }
        { le[++n] = $1; c[n] = $2 - start[$1] }
        END {
            total = c[n]; if (total <= 0) { print "-"; exit }
            rank = total * q / 1000
            for (i = 1; i <= n; i++) if (c[i] >= rank) {
                if (le[i] == "+Inf") print "> " le[i - 1] * 1000; else print "<= " le[i] * 1000
                exit
            }
        }' "$1" "$2"
}

# A lateness_window answer as a number: "<= 250" -> 250, "> 60000" -> 60001
# (above every bound), "-" as it is.
window_ms() { awk '{ if ($1 == ">") print $2 + 1; else if ($1 == "<=") print $2; else print $0 }' <<<"$1"; }

# wrk output -> total completed requests ("N requests in 10.00s")
wrk_requests() { awk '/ requests in / { print $1; exit }'; }
# Totals of alternating wrk windows (ping.sh, http.sh, SLICES): PREFIX_req,
# PREFIX_s (wrk's own seconds), PREFIX_p99 (the worst window's),
# PREFIX_non2xx and PREFIX_errs, in the caller's variables of those names.
window_reset() {
    local v
    for v in req s p99 non2xx; do printf -v "${1}_$v" 0; done
    printf -v "${1}_errs" '%s' ''
}
window_add() {   # PREFIX "wrk output"
    local -n _wa_req=${1}_req _wa_s=${1}_s _wa_p99=${1}_p99 _wa_non=${1}_non2xx _wa_errs=${1}_errs
    local _wa_rps _wa_w99 _wa_wnon _wa_werrs
    read -r _wa_rps _wa_w99 _wa_wnon _wa_werrs < <(parse_wrk <<<"$2")
    _wa_req=$((_wa_req + $(wrk_requests <<<"$2")))
    _wa_non=$((_wa_non + _wa_wnon))
    _wa_s=$(awk -v a="$_wa_s" -v b="$(wrk_seconds <<<"$2")" 'BEGIN { print a + b }')
    _wa_p99=$(awk -v a="$_wa_p99" -v b="$_wa_w99" 'BEGIN { print (b > a) ? b : a }')
    [[ $_wa_werrs == - ]] || _wa_errs+="$_wa_werrs "
}
window_rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.2f", (s > 0) ? n / s : 0 }'; }   # REQUESTS SECONDS

# The seconds a wrk run lasted, from its "N requests in 2.00s, ..." line.
wrk_seconds() {
    awk '/ requests in / {
        d = $4; sub(/,$/, "", d)
        if (d ~ /ms$/) { sub(/ms$/, "", d); d = d / 1000 }
        else if (d ~ /m$/) { sub(/m$/, "", d); d = d * 60 }
        else sub(/s$/, "", d)
        printf "%.3f\n", d; exit
    }'
}

# Release build of bench/CheckBench (Sources/CheckBench); SKIP_BUILD=1 reuses
# it, CHECKBENCH_BIN points at another one. Sets CHECKBENCH.
build_checkbench() {
    if [[ -n ${CHECKBENCH_BIN:-} ]]; then
        CHECKBENCH=$CHECKBENCH_BIN
    else
        if [[ ${SKIP_BUILD:-0} != 1 ]]; then
            log "swift build -c release --static-swift-stdlib --product CheckBench"
            (cd "$ROOT" && swift build -c release --static-swift-stdlib --product CheckBench 2>&1 | tail -n 3 >&2)
        fi
        CHECKBENCH="$ROOT/.build/release/CheckBench"
    fi
    [[ -x $CHECKBENCH ]] || die "no CheckBench binary at $CHECKBENCH"
}

# Environment for a bench hub on 127.0.0.1:$1 with its database under $2,
# or, with a third argument, on that PostgreSQL URL ($2 still holds the log).
hub_env() {
    export PINGTXT_SERVER_LISTEN="127.0.0.1:$1"
    export PINGTXT_SERVER_PUBLIC_URL="http://127.0.0.1:$1"
    if [[ -n ${3:-} ]]; then
        unset PINGTXT_DATABASE_PATH
        export PINGTXT_DATABASE_URL="$3"
    else
        unset PINGTXT_DATABASE_URL
        export PINGTXT_DATABASE_PATH="$2/pingtxt.db"
    fi
    export PINGTXT_ADMIN_EMAIL="bench@example.com"
    export PINGTXT_ADMIN_PASSWORD="bench-password-123"
    export PINGTXT_SERVER_ACCESS_LOG=false
    mkdir -p "$2"
}

# Optional profile (PERF=1): perf record of a pid for $3 seconds in the
# background (99 Hz x cores is too coarse; 999 Hz with frame-pointer call
# graphs). perf_report writes the flat and the caller-inclusive top lists,
# demangled, to $2.txt.
perf_start() {
    local pid=$1 base=$2 secs=$3
    command -v perf >/dev/null || need_pkgs perf linux-perf
    perf record -q -F 999 -g -p "$pid" -o "$base.data" -- sleep "$secs" >/dev/null 2>&1 &
    PERF_PID=$!
}
perf_report() {
    local base=$1 dm=cat
    [[ -n ${PERF_PID:-} ]] && wait "$PERF_PID" 2>/dev/null || true
    PERF_PID=""
    command -v swift >/dev/null && dm="swift demangle --simplified"
    top() { perf report -i "$base.data" "$@" --stdio -g none 2>/dev/null >"$base.tmp" || true
            grep -v -e '^#' -e '^$' "$base.tmp" | awk -v n="$TOPN" 'NR <= n' || true; }
    local TOPN=45
    {
        echo "## self time (perf report --no-children --sort dso,symbol)"
        top --no-children --sort dso,symbol
        echo
        echo "## inclusive (callers included, --children)"
        top --children --sort symbol
        echo
        echo "## per thread (comm)"
        TOPN=20 top --no-children --sort comm
    } | $dm >"$base.txt"
    rm -f "$base.data" "$base.tmp"
}

# Start of every bench script: a temp dir ($TMP, removed at exit), the output
# file bench/out/<name>-<stamp>.txt ($OUT, $STAMP), say() printing to both,
# and an EXIT trap that stops the processes whose pids are in the named
# variables (read at exit, so they may be set later; empty ones are skipped).
# usage: bench_begin NAME [PID_VAR...]
bench_begin() {
    local name=$1; shift
    BENCH_PID_VARS=("$@")
    local v
    for v in "${BENCH_PID_VARS[@]}"; do printf -v "$v" '%s' ""; done
    TMP=$(mktemp -d "/tmp/pingtxt-$name.XXXXXX")
    trap bench_cleanup EXIT
    trap 'exit 130' INT TERM
    mkdir -p "$OUT_DIR"
    STAMP=$(date +%Y%m%d-%H%M%S)
    OUT="$OUT_DIR/$name-$STAMP.txt"
    : >"$OUT"
}

# Functions run by the EXIT trap after the pids are stopped, last registered
# first (pg.sh's pg_stop); usage: bench_on_exit FUNCTION
BENCH_EXIT_HOOKS=()
bench_on_exit() { BENCH_EXIT_HOOKS=("$1" "${BENCH_EXIT_HOOKS[@]}"); }

bench_cleanup() {
    local rc=$? v
    for v in "${BENCH_PID_VARS[@]}"; do stop_pid "${!v:-}"; done
    for v in "${BENCH_EXIT_HOOKS[@]}"; do "$v" || true; done
    rm -rf "$TMP"
    exit $rc
}

say() { printf '%s\n' "$*" | tee -a "$OUT"; }

# ENGINES=sqlite,postgres (commas or spaces) -> the array ENGINE_LIST; checks
# the names. Sources bench/pg.sh when postgres is among them.
parse_engines() {
    local e
    IFS=', ' read -r -a ENGINE_LIST <<<"${ENGINES:-sqlite}"
    for e in "${ENGINE_LIST[@]}"; do
        [[ $e == sqlite || $e == postgres ]] || die "ENGINES: unknown engine '$e' (sqlite, postgres)"
    done
    if [[ " ${ENGINE_LIST[*]} " == *" postgres "* ]]; then
        # shellcheck source=bench/pg.sh
        source "$BENCH_DIR/pg.sh"
    fi
}
has_engine() { [[ " ${ENGINE_LIST[*]} " == *" $1 "* ]]; }
