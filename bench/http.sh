#!/usr/bin/env bash
# HTTP throughput of `pingtxt serve` against nginx serving a static JSON file,
# all on loopback, in one run.
#
#   bench/http.sh                      # build, bench, print + save the table
#   DURATION=30s RUNS=3 bench/http.sh  # longer, repeated
#   SKIP_BUILD=1 bench/http.sh         # reuse .build/release/pingtxt
#
# Environment (all optional):
#   DURATION=10s      wrk -d per target (whole seconds)
#   SLICES=5          each hub target runs in SLICES windows alternating with
#                     nginx windows of the same length (nginx, hub, nginx,
#                     hub, ...), and its ratio is to those nginx windows: this
#                     machine's speed drifts by a third within seconds, and
#                     a hub target measured 10-40 s after the run's one nginx
#                     measurement carried that drift into its ratio. Each
#                     side's rate is its requests over its seconds, p99 the
#                     worst window's. SLICES=1: the earlier form, one nginx
#                     measurement per run first and each target's ratio to it
#   THREADS=2         wrk -t
#   CONNECTIONS=64    wrk -c
#   RUNS=1            repeat the whole set (each run has its own nginx ratio)
#   MODES="default quiet"
#                     default = pingtxt as shipped (access_log on, one log line
#                     per request to stderr, here redirected to a file);
#                     quiet = PINGTXT_SERVER_ACCESS_LOG=false
#   ENGINES=sqlite    or sqlite,postgres: the hub rows once per engine, each on
#                     a fresh database (PostgreSQL: a throwaway cluster from
#                     bench/pg.sh, fsync on); PostgreSQL rows are labelled
#                     "(mode, pg)" and get a "x sqlite" ratio to the SQLite row
#                     of the same run (the reference)
#   PG_STATS=1        pg_stat_statements on; top statements after each pg row
#   SKIP_BUILD=1      do not run swift build
#   PINGTXT_BIN=path  bench this binary instead of .build/release/pingtxt
#
# Output: a table (target, req/s, p99 latency, ratio to nginx in the same run
# (with SLICES > 1, to the nginx windows beside the target's, whose rate is
# on the line below it), non-2xx count) on stdout and in
# bench/out/http-<date>.txt.
# wrk shares the 2 cores with the server: compare ratios within one run.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

DURATION=${DURATION:-10s}
SLICES=${SLICES:-5}
SECONDS_TOTAL=${DURATION%s}
[[ $SECONDS_TOTAL =~ ^[0-9]+$ && $SLICES =~ ^[0-9]+$ && $SLICES -ge 1 && $SECONDS_TOTAL -ge $SLICES ]] \
    || die "DURATION ($DURATION) must be whole seconds, at least SLICES ($SLICES)"
SLICE_SECONDS=$((SECONDS_TOTAL / SLICES))
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-64}
RUNS=${RUNS:-1}
MODES=${MODES:-"default quiet"}

need_pkgs "wrk nginx" wrk nginx-light
parse_engines
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
build_firstok
build_pingtxt

bench_begin http HUB_PID NGINX_PID
chmod 755 "$TMP"   # nginx workers (user nobody) read the docroot

# --- nginx -------------------------------------------------------------------
NGINX_PORT=$("$FIRSTOK" port)
mkdir -p "$TMP/www"
printf '{"status":"ok"}' >"$TMP/www/healthz"
start_nginx "$TMP" "$NGINX_PORT"

# --- pingtxt -----------------------------------------------------------------
HUB_PORT=$("$FIRSTOK" port)
export PINGTXT_SERVER_LISTEN="127.0.0.1:$HUB_PORT"
export PINGTXT_ADMIN_EMAIL="bench@example.com"
export PINGTXT_ADMIN_PASSWORD="bench-password-123"
mkdir -p "$TMP/hub"
HUB_LOG=""
if has_engine postgres; then
    PG_KEEP_LOG="$OUT_DIR/http-$STAMP.pg-server.log"
    pg_start
    PG_URL=$(pg_createdb httpbench)
fi
# use_engine sqlite|postgres: the database the next hub start and CLI use.
use_engine() {
    if [[ $1 == postgres ]]; then
        unset PINGTXT_DATABASE_PATH; export PINGTXT_DATABASE_URL="$PG_URL"
    else
        unset PINGTXT_DATABASE_URL; export PINGTXT_DATABASE_PATH="$TMP/hub/pingtxt.db"
    fi
}

HUB_STARTS=0
start_hub() {   # $1 = mode (the engine is use_engine's)
    HUB_STARTS=$((HUB_STARTS + 1))
    HUB_LOG="$TMP/hub/serve-$HUB_STARTS-$1-${PINGTXT_DATABASE_URL:+pg}.log"
    if [[ $1 == quiet ]]; then
        PINGTXT_SERVER_ACCESS_LOG=false "$BIN" serve >"$HUB_LOG" 2>&1 &
    else
        "$BIN" serve >"$HUB_LOG" 2>&1 &
    fi
    HUB_PID=$!
    "$FIRSTOK" wait "$HUB_PORT" 10000 /healthz || { cat "$HUB_LOG" >&2; die "pingtxt serve did not answer"; }
}

# First start creates the database and the admin; then one read token (per engine).
declare -A TOKENS
for engine in "${ENGINE_LIST[@]}"; do
    use_engine "$engine"
    start_hub default
    TOKENS[$engine]=$("$BIN" token create --email "$PINGTXT_ADMIN_EMAIL" --scope read --name bench)
    [[ ${TOKENS[$engine]} == pmk_* ]] || die "token create ($engine) printed '${TOKENS[$engine]}'"
    stop_pid "$HUB_PID"; HUB_PID=""
done

# --- runs --------------------------------------------------------------------
bench() {   # $1 = label, rest = wrk args; appends a row, sets LAST_RPS
    local label=$1; shift
    local raw rps p99 non2xx errs ratio p0=0 p1=0 k0 k1 ref_rps=""
    [[ $label == *", pg)" ]] && { pg_stat_reset httpbench; p0=$(pg_cpu_ticks); }
    k0=$(cpu_ticks "$HUB_PID")
    if [[ $SLICES -gt 1 && $label != "nginx static" ]]; then
        # Alternating windows (see SLICES above); hub CPU counts nginx's
        # windows too, when the hub is idle.
        local n_req n_s n_p99 n_non2xx n_errs h_req h_s h_p99 h_non2xx h_errs
        window_reset n; window_reset h
        for _ in $(seq "$SLICES"); do
            raw=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SLICE_SECONDS}s" --latency "http://127.0.0.1:$NGINX_PORT/healthz")
            printf '## nginx beside %s\n%s\n\n' "$label" "$raw" >>"$TMP/wrk-raw.txt"
            window_add n "$raw"
            raw=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${SLICE_SECONDS}s" --latency "$@")
            printf '## %s\n%s\n\n' "$label" "$raw" >>"$TMP/wrk-raw.txt"
            window_add h "$raw"
        done
        rps=$(window_rate "$h_req" "$h_s")
        ref_rps=$(window_rate "$n_req" "$n_s")
        p99=$h_p99; non2xx=$h_non2xx; errs=${h_errs:--}
    else
        raw=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$@")
        printf '## %s\n%s\n\n' "$label" "$raw" >>"$TMP/wrk-raw.txt"
        read -r rps p99 non2xx errs < <(printf '%s\n' "$raw" | parse_wrk)
    fi
    k1=$(cpu_ticks "$HUB_PID")
    [[ $label == *", pg)" ]] && p1=$(pg_cpu_ticks)
    LAST_RPS=$rps
    # The reference of this row's ratio: the nginx windows beside it, or
    # the run's nginx row.
    [[ -z $ref_rps ]] && ref_rps=${NGINX_RPS:-$rps}
    [[ -z $ref_rps || $ref_rps == 0 ]] && ref_rps=$rps
    printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$rps" "$p99" "$run" "$ref_rps" >>"$TMP/rows.tsv"
    ratio=$(awk -v a="$rps" -v b="$ref_rps" 'BEGIN { printf "%.2fx", (b > 0) ? a / b : 0 }')
    # PostgreSQL rows: ratio to the SQLite row of the same label in this run.
    local ref=${RUN_RPS["${label/, pg)/)}"]:-} xs=-
    RUN_RPS[$label]=$rps
    [[ $label == *", pg)" && -n $ref ]] && xs=$(awk -v a="$rps" -v b="$ref" 'BEGIN { printf "%.2fx", (b > 0) ? a / b : 0 }')
    printf '%-24s %12.0f %10.2f %8s %8s %8s  %s\n' "$label" "$rps" "$p99" "$ratio" "$xs" "$non2xx" "$errs" | tee -a "$OUT"
    if [[ -n ${HUB_PID:-} ]]; then
        say "$(awk -v k="$((k1 - k0))" -v p="$((p1 - p0))" -v h="$CLK_TCK" -v pg="$([[ $label == *", pg)" ]] && echo 1)" \
            -v ngx="$([[ $SLICES -gt 1 ]] && echo "$ref_rps")" \
            'BEGIN { if (ngx != "") printf "    nginx in the windows beside it %.0f req/s;", ngx; printf "    hub CPU %.1f s", k / h; if (pg) printf ", PostgreSQL server CPU %.1f s", p / h }')"
    fi
    if [[ $label == *", pg)" && ${PG_STATS:-0} == 1 ]]; then
        pg_stat_top httpbench 6 | sed 's/^/     /' | tee -a "$OUT"
    fi
}

say "pingtxt hub HTTP bench — $(date -u '+%Y-%m-%d %H:%M:%SZ')"
say "commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), binary $BIN ($(du -h "$BIN" | cut -f1))"
say "$(nproc) cores, $(uname -r), $("$NGINX" -v 2>&1 | sed 's/.*: //'), $(wrk -v 2>&1 | head -n1 | awk '{print $1, $2}')"
say "wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency per target$([[ $SLICES -gt 1 ]] && echo ", in $SLICES windows alternating with as many nginx windows"), GET over keep-alive; nginx: static file, access_log off, worker_processes auto"
say "pingtxt: default config (event_loops=cores, workers=16); 'default' = access log on (stderr -> file), 'quiet' = PINGTXT_SERVER_ACCESS_LOG=false"
say "engines: ${ENGINE_LIST[*]}$(has_engine postgres && echo "; PostgreSQL $PG_VERSION on 127.0.0.1:$PG_PORT ($(pg_settings))")"

for run in $(seq "$RUNS"); do
    say ""
    say "run $run/$RUNS (loadavg before: $(cut -d' ' -f1-3 /proc/loadavg); $(busy_others))"
    say "$(printf '%-24s %12s %10s %8s %8s %8s  %s' target 'req/s' 'p99 ms' 'x nginx' 'x sqlite' 'non-2xx' 'socket errors')"
    NGINX_RPS=""
    declare -A RUN_RPS=()
    bench "nginx static" "http://127.0.0.1:$NGINX_PORT/healthz"
    NGINX_RPS=$LAST_RPS
    for engine in "${ENGINE_LIST[@]}"; do
    use_engine "$engine"
    sfx=""; [[ $engine == postgres ]] && sfx=", pg"
    for mode in $MODES; do
        start_hub "$mode"
        bench "/healthz ($mode$sfx)" "http://127.0.0.1:$HUB_PORT/healthz"
        bench "/api/me ($mode$sfx)" -H "Authorization: Bearer ${TOKENS[$engine]}" "http://127.0.0.1:$HUB_PORT/api/me"
        if ! kill -0 "$HUB_PID" 2>/dev/null; then
            wait "$HUB_PID" 2>/dev/null && st=0 || st=$?
            cp "$HUB_LOG" "$OUT_DIR/http-$STAMP.serve-died-$HUB_STARTS.log"
            say "  !! pingtxt serve ($mode) is gone (wait status $st); log: $OUT_DIR/http-$STAMP.serve-died-$HUB_STARTS.log"
            grep -v ' request ' "$HUB_LOG" | tail -n 5 | sed 's/^/     /' | tee -a "$OUT"
            HUB_PID=""
            continue
        fi
        say "$(printf '  pingtxt %s (%s): RSS after load %s kB, %s threads, log %s bytes' "$mode" "$engine" \
            "$(rss_kb "$HUB_PID")" "$(threads_of "$HUB_PID")" "$(stat -c %s "$HUB_LOG")")"
        stop_pid "$HUB_PID"; HUB_PID=""
        w=$(grep -v ' request ' "$HUB_LOG" | grep -ci -e error -e warn || true)
        [[ $w == 0 ]] || { say "  serve log ($mode, $engine): $w lines with error/warn:"; grep -v ' request ' "$HUB_LOG" | grep -i -e error -e warn | head -n 3 | sed 's/^/     /' | tee -a "$OUT"; }
    done
    done
    say "  loadavg after run $run: $(cut -d' ' -f1-3 /proc/loadavg); $(busy_others)"
done

# Medians over the runs (ratios taken per run, then the median of those).
if [[ $RUNS -gt 1 ]]; then
    say ""
    say "median of $RUNS runs"
    say "$(printf '%-24s %12s %10s %8s %8s' target 'req/s' 'p99 ms' 'x nginx' 'x sqlite')"
    awk -F'\t' -v runs="$RUNS" '
        function median(list,   n, a, i, j, t) {
            n = split(list, a, " ")
            for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        {
            if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 }
            rps[$1] = rps[$1] " " $2; p99[$1] = p99[$1] " " $3; ratio[$1] = ratio[$1] " " (($5 > 0) ? $2 / $5 : 0)
            byrun[$1, $4] = $2
            if ($1 ~ /, pg\)$/) { ref = $1; sub(/, pg\)$/, ")", ref); if ((ref, $4) in byrun && byrun[ref, $4] > 0) xs[$1] = xs[$1] " " ($2 / byrun[ref, $4]) }
        }
        END { for (i = 1; i <= k; i++) { t = order[i]; printf "%-24s %12.0f %10.2f %7.2fx %8s\n", t, median(rps[t]), median(p99[t]), median(ratio[t]), (t in xs) ? sprintf("%.2fx", median(xs[t])) : "-" } }
    ' "$TMP/rows.tsv" | tee -a "$OUT"
fi

cp "$TMP/wrk-raw.txt" "$OUT_DIR/http-$STAMP.wrk.txt"
say ""
say "saved: $OUT (raw wrk output: $OUT_DIR/http-$STAMP.wrk.txt)"
