#!/usr/bin/env bash
# Scheduler load of `pingtxt serve` with many HTTP monitors, and the check
# engine at full speed against prometheus-blackbox-exporter, in one run.
#
#   bench/scheduler.sh                                # 10,000 monitors x 30 s, 300 s sampled
#   MONITORS=2000 DURATION=60 SKIP_BUILD=1 bench/scheduler.sh
#
# Steps (all on loopback; every process is stopped by the EXIT trap):
#  1. nginx serves {"status":"ok"} as /ok.json.
#  2. pingtxt serve (release build, temp DB, access log off) gets MONITORS
#     http monitors on that URL (interval INTERVAL s, timeout 10 s, retries 0)
#     through POST /api/monitors over one keep-alive connection (bench/api.py);
#     the creation time is reported.
#  3. Warm-up WARMUP s (default: one interval), then DURATION s sampled every
#     SAMPLE s: checks/s (delta of pingtxt_checks_total), hub CPU % of one
#     core (delta of utime+stime in /proc/PID/stat over wall time), VmRSS,
#     checks in flight. At the end: lateness p50/p99 over the window (the
#     difference of two scrapes of pingtxt_check_lateness_seconds, so at the
#     histogram's bounds: "<= 250" ms), and the cumulative quantiles of
#     pingtxt_check_lateness_ms (since start: the creation burst is in them).
#  4. The hub is stopped; then, against the same nginx URL, at full speed:
#     prometheus-blackbox-exporter (own config, module http_2xx) under
#     wrk -t2 -cBB_CONNECTIONS -dBENCH_SECONDS (one request = one probe), and
#     CheckBench (Net.ClientEngine, loops CHECKBENCH_LOOPS) at concurrency
#     64 and 256. Ratio = best CheckBench / blackbox.
#
# Targets (issue): hub < 25 % of one core and RSS < 100 MB at 10,000 x 30 s,
# p99 lateness < 1 s, full-speed checks/s >= 2x blackbox.
#
# Environment: MONITORS=10000 INTERVAL=30 DURATION=300 (s) SAMPLE=10 (s)
#   WARMUP=$INTERVAL BENCH_SECONDS=10 BB_CONNECTIONS=64 CHECKBENCH_LOOPS=1
#   CHECKBENCH_CONCURRENCY="64 256" MAX_CONCURRENT (PINGTXT_CHECKS_MAX_CONCURRENT,
#   unset = hub default) SKIP_BUILD=1 PINGTXT_BIN=path CHECKBENCH_BIN=path
#   SHAPES=plain (or plain,deps): "deps" runs each configuration again with
#   DEP_TAGS=100 tags over the monitors and DEP_EDGES=1000 of them depending
#   on another (bench/api.py), and compares its µs per check with "plain"
#   SKIP_HUB=1 (only the full-speed comparison) SKIP_COMPARE=1 (only the hub part)
#   PERF=1 PERF_SECONDS=60: perf record the hub during the window, top lists
#   to bench/out/scheduler-<date>.<engine>-<hubs>.perf.txt
#   ENGINES=sqlite (or sqlite,postgres) HUBS=1 (or 1,2): step 2-3 once per
#   configuration (engine x hubs; several hubs only on PostgreSQL, one hub per
#   SQLite file), each on a fresh database in the same run. PostgreSQL is a
#   throwaway cluster (bench/pg.sh, fsync on); its server CPU (postmaster and
#   backends) is sampled beside the hubs'. With several hubs on one database
#   every hub is sampled (checks/s, CPU, RSS, lateness from its own /metrics)
#   and the total checks/s is printed: sharing the work shows as a total of
#   MONITORS / INTERVAL, not HUBS times it. The monitors are created through
#   hub 1, one per request over 8 connections, or with BULK=1000 a thousand
#   per request through POST /api/monitors/bulk {"action": "create"}. The
#   summary gives each configuration's CPU and µs per check as a ratio to
#   SQLite x1 (the reference).
# Output: stdout and bench/out/scheduler-<date>.txt.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

MONITORS=${MONITORS:-10000}
INTERVAL=${INTERVAL:-30}
DURATION=${DURATION:-300}; DURATION=${DURATION%s}
SAMPLE=${SAMPLE:-10}
WARMUP=${WARMUP:-$INTERVAL}; WARMUP=${WARMUP%s}
BENCH_SECONDS=${BENCH_SECONDS:-10}; BENCH_SECONDS=${BENCH_SECONDS%s}
BB_CONNECTIONS=${BB_CONNECTIONS:-64}
CHECKBENCH_LOOPS=${CHECKBENCH_LOOPS:-1}
CHECKBENCH_CONCURRENCY=${CHECKBENCH_CONCURRENCY:-"64 256"}
TARGET_CPU=25
TARGET_RSS_MB=100
TARGET_P99_MS=1000
TARGET_RATIO=2
IFS=', ' read -r -a HUB_LIST <<<"${HUBS:-1}"
IFS=', ' read -r -a SHAPE_LIST <<<"${SHAPES:-plain}"
DEP_TAGS=${DEP_TAGS:-100}
DEP_EDGES=${DEP_EDGES:-1000}

need_pkgs "wrk nginx curl python3" wrk nginx-light curl python3
[[ ${SKIP_COMPARE:-0} == 1 ]] || need_pkgs "prometheus-blackbox-exporter" prometheus-blackbox-exporter
parse_engines
build_firstok
[[ ${SKIP_HUB:-0} == 1 ]] || build_pingtxt
[[ ${SKIP_COMPARE:-0} == 1 ]] || build_checkbench

bench_begin scheduler BB_PID NGINX_PID
# The hub runs as a copy named "hubd" (with "token create" from the original):
# on this shared machine another session's broad "pkill pingtxt" once stopped
# the bench hub mid-run.
HUBD="$TMP/hubd"
now() { date +%s.%N; }
calc() { awk "BEGIN { $1 }"; }
# num FORMAT EXPR: the awk expression, parenthesized (so ">" is never a redirect).
num() { awk "BEGIN { printf \"$1\", ($2) }"; }

say "pingtxt scheduler bench — $(date -u '+%Y-%m-%d %H:%M:%SZ')"
say "commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores, $(uname -r)"
say "loadavg $(loadavg); $(busy_others)"

# --- nginx -------------------------------------------------------------------
NGINX_PORT=$("$FIRSTOK" port)
mkdir -p "$TMP/www"
printf '{"status":"ok"}' >"$TMP/www/ok.json"
printf '{"status":"ok"}' >"$TMP/www/healthz"
start_nginx "$TMP" "$NGINX_PORT" /ok.json
TARGET="http://127.0.0.1:$NGINX_PORT/ok.json"
say "target: $TARGET (nginx static, access_log off)"
say "configurations: engines ${ENGINE_LIST[*]}, hubs ${HUB_LIST[*]}; warm-up ${WARMUP}s, sampled ${DURATION}s every ${SAMPLE}s"
if has_engine postgres && [[ ${SKIP_HUB:-0} != 1 ]]; then
    PG_KEEP_LOG="$OUT_DIR/scheduler-$STAMP.pg-server.log"
    pg_start
    say "PostgreSQL $PG_VERSION on 127.0.0.1:$PG_PORT: $(pg_settings)"
fi
# The hubs of the configuration running now; stopped by the EXIT trap before
# PostgreSQL (hooks run last registered first).
HUB_PIDS=""
stop_hubs() { local p; for p in $HUB_PIDS; do stop_pid "$p"; done; }
bench_on_exit stop_hubs

# --- hubs under MONITORS monitors -------------------------------------------------
# One configuration: ENGINE with NHUBS hubs on one fresh database. Appends a
# row per hub and a total row to $SUMMARY:
#   config hub checks/s cpu% us/check rss_max_kb p50 p99 pg_cpu% created_per_s
SUMMARY="$TMP/summary.tsv"
: >"$SUMMARY"
[[ ${SKIP_HUB:-0} == 1 ]] || cp "$BIN" "$HUBD"

run_config() {
    local engine=$1 nhubs=$2 shape=${3:-plain} cfg="$1 x$2" url="" i db
    [[ $shape == plain ]] || cfg="$cfg $shape"
    db="sched_${nhubs}_${shape}"
    local -a PORT PID LOG N0 K0 NP KP RMAX RSUM
    if [[ $engine == postgres ]]; then
        url=$(pg_createdb "$db")
    fi
    say ""
    say "== $cfg: $MONITORS http monitors, interval ${INTERVAL}s (expected $(num %.1f "$MONITORS / $INTERVAL") checks/s in total)," \
        "max_concurrent ${PINGTXT_CHECKS_MAX_CONCURRENT:-default}, binary $BIN"
    for ((i = 1; i <= nhubs; i++)); do
        PORT[i]=$("$FIRSTOK" port)
        LOG[i]="$TMP/hub-$engine-$nhubs-$shape-$i/serve.log"
        hub_env "${PORT[i]}" "$TMP/hub-$engine-$nhubs-$shape-$i" "$url"
        "$HUBD" serve >"${LOG[i]}" 2>&1 &
        PID[i]=$!
        HUB_PIDS="$HUB_PIDS ${PID[i]}"
        "$FIRSTOK" wait "${PORT[i]}" 30000 /healthz || { tail -n 20 "${LOG[i]}" >&2; die "pingtxt serve ($cfg, hub $i) did not answer"; }
        say "hub $i: pid ${PID[i]}, 127.0.0.1:${PORT[i]}, healthz $(curl -fsS "http://127.0.0.1:${PORT[i]}/healthz" | tr -d '\n')"
    done
    # CLI on the first hub's environment (same database for all of them)
    hub_env "${PORT[1]}" "$TMP/hub-$engine-$nhubs-$shape-1" "$url"
    TOKEN=$("$BIN" token create --email "$PINGTXT_ADMIN_EMAIL" --scope write --name sched-bench)
    [[ $TOKEN == pmk_* ]] || die "token create printed '$TOKEN'"
    metrics() { curl -fsS -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:${PORT[$1]}/metrics?monitors=false"; }

    say "RSS before creation: $(for ((i = 1; i <= nhubs; i++)); do printf 'hub %s %s kB  ' "$i" "$(rss_kb "${PID[i]}")"; done)"
    local c0 c1 created p0 p1
    c0=$(cpu_ticks "${PID[1]}")
    p0=0; [[ $engine == postgres ]] && p0=$(pg_cpu_ticks)
    local shape_env=()
    [[ $shape == deps ]] && shape_env=(TAGS="$DEP_TAGS" DEPENDENCIES="$DEP_EDGES")
    created=$(env "${shape_env[@]}" python3 "$BENCH_DIR/api.py" http "http://127.0.0.1:${PORT[1]}" "$TOKEN" "$MONITORS" "$TARGET" "$INTERVAL")
    c1=$(cpu_ticks "${PID[1]}")
    p1=0; [[ $engine == postgres ]] && p1=$(pg_cpu_ticks)
    say "creation through hub 1: $created (one keep-alive connection; hub 1 CPU during creation $(num %.1f "($c1 - $c0) / $CLK_TCK") s$([[ $engine == postgres ]] && echo ", PostgreSQL $(num %.1f "($p1 - $p0) / $CLK_TCK") s"));" \
        "RSS after: $(rss_kb "${PID[1]}") kB; loadavg $(loadavg)"
    local created_per_s
    created_per_s=$(sed -n 's/.*per_s=\([0-9.]*\).*/\1/p' <<<"$created")
    say "warm-up ${WARMUP}s..."
    sleep "$WARMUP"
    for ((i = 1; i <= nhubs; i++)); do
        kill -0 "${PID[i]}" 2>/dev/null || { tail -n 20 "${LOG[i]}" >&2; die "pingtxt serve ($cfg, hub $i) died during warm-up"; }
    done

    local hdr="$(printf '%6s %9s' 't s' 'total/s')" m t T0 T1 PG0 PGP PG1 line
    for ((i = 1; i <= nhubs; i++)); do hdr+=$(printf ' | h%d %8s %6s %8s %6s' "$i" 'checks/s' 'CPU %' 'RSS kB' 'flight'); done
    [[ $engine == postgres ]] && hdr+=$(printf ' | %7s' 'pg CPU%')
    say "$hdr  loadavg"
    T0=$(now)
    PG0=0; [[ $engine == postgres ]] && PG0=$(pg_cpu_ticks) && pg_stat_reset "$db"
    for ((i = 1; i <= nhubs; i++)); do
        m=$(metrics "$i"); K0[i]=$(cpu_ticks "${PID[i]}"); N0[i]=$(metric_value pingtxt_checks_total <<<"$m")
        lateness_buckets <<<"$m" >"$TMP/lateness-$i.start"
        NP[i]=${N0[i]} KP[i]=${K0[i]} RMAX[i]=0 RSUM[i]=0
    done
    local tp=$T0 samples=0 end left n k r fl tot
    PGP=$PG0
    if [[ ${PERF:-0} == 1 ]]; then
        perf_start "${PID[1]}" "$OUT_DIR/scheduler-$STAMP.$engine-$nhubs.perf" "${PERF_SECONDS:-60}"
        say "(perf record -F 999 -g on hub 1 for ${PERF_SECONDS:-60}s of the window: CPU % includes its overhead)"
    fi
    end=$(num %.3f "$T0 + $DURATION")
    while :; do
        left=$(num %.3f "($end - $(now) > $SAMPLE) ? $SAMPLE : $end - $(now)")
        (( $(num %d "$left > 0.05") )) || break
        sleep "$left"
        t=$(now); line="" tot=0
        for ((i = 1; i <= nhubs; i++)); do
            kill -0 "${PID[i]}" 2>/dev/null || { tail -n 20 "${LOG[i]}" >&2; die "pingtxt serve ($cfg, hub $i) died while sampled"; }
            m=$(metrics "$i"); k=$(cpu_ticks "${PID[i]}"); r=$(rss_kb "${PID[i]}")
            n=$(metric_value pingtxt_checks_total <<<"$m"); fl=$(metric_value pingtxt_checks_in_flight <<<"$m")
            line+=$(calc "printf \" | h$i %8.1f %6.1f %8d %6s\", ($n - ${NP[i]}) / ($t - $tp), 100 * ($k - ${KP[i]}) / $CLK_TCK / ($t - $tp), $r, \"$fl\"")
            tot=$(num %.1f "$tot + ($n - ${NP[i]}) / ($t - $tp)")
            (( r > RMAX[i] )) && RMAX[i]=$r
            RSUM[i]=$((RSUM[i] + r)); NP[i]=$n KP[i]=$k
        done
        if [[ $engine == postgres ]]; then
            PG1=$(pg_cpu_ticks)
            line+=$(num ' | %7.1f' "100 * ($PG1 - $PGP) / $CLK_TCK / ($t - $tp)")
            PGP=$PG1
        fi
        say "$(num '%6.0f' "$t - $T0") $(num '%9.1f' "$tot")$line  $(loadavg)"
        samples=$((samples + 1)); tp=$t
    done
    T1=$(now)
    local pgcpu="-" total_rate=0 total_cpu=0 rate cpu us p50 p99 w50 w99 l1 w1 b1 errs
    if [[ $engine == postgres ]]; then
        PG1=$(pg_cpu_ticks)
        pgcpu=$(num %.1f "100 * ($PG1 - $PG0) / $CLK_TCK / ($T1 - $T0)")
    fi
    if [[ ${PERF:-0} == 1 ]]; then
        perf_report "$OUT_DIR/scheduler-$STAMP.$engine-$nhubs.perf"
        say "profile: $OUT_DIR/scheduler-$STAMP.$engine-$nhubs.perf.txt"
    fi
    say ""
    for ((i = 1; i <= nhubs; i++)); do
        k=$(cpu_ticks "${PID[i]}"); m=$(metrics "$i")
        n=$(metric_value pingtxt_checks_total <<<"$m")
        p50=$(metric_value 'pingtxt_check_lateness_ms{quantile="0.5"}' <<<"$m")
        p99=$(metric_value 'pingtxt_check_lateness_ms{quantile="0.99"}' <<<"$m")
        # Over the sampled window only: the cumulative figures above also
        # count the creation burst and the warm-up.
        lateness_buckets <<<"$m" >"$TMP/lateness-$i.end"
        w50=$(lateness_window "$TMP/lateness-$i.start" "$TMP/lateness-$i.end" 500)
        w99=$(lateness_window "$TMP/lateness-$i.start" "$TMP/lateness-$i.end" 990)
        l1=$(metric_value pingtxt_check_lateness_ms_count <<<"$m")
        w1=$(metric_value pingtxt_db_batched_writes_total <<<"$m")
        b1=$(metric_value pingtxt_db_batches_total <<<"$m")
        rate=$(num %.1f "($n - ${N0[i]}) / ($T1 - $T0)")
        cpu=$(num %.1f "100 * ($k - ${K0[i]}) / $CLK_TCK / ($T1 - $T0)")
        us=$(num %.0f "($n - ${N0[i]} > 0) ? 1e6 * ($k - ${K0[i]}) / $CLK_TCK / ($n - ${N0[i]}) : 0")
        total_rate=$(num %.1f "$total_rate + $rate"); total_cpu=$(num %.1f "$total_cpu + $cpu")
        say "$cfg hub $i over ${DURATION}s: $rate checks/s, CPU $cpu % of one core ($us µs CPU per check)," \
            "RSS max ${RMAX[i]} kB / mean $(( samples > 0 ? RSUM[i] / samples : 0 )) kB;" \
            "lateness over the window p50 $w50 ms, p99 $w99 ms (cumulative since start, $l1 samples: p50 $p50 ms, p99 $p99 ms); db batched writes $w1 in $b1 batches; threads $(threads_of "${PID[i]}")"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$cfg" "$i" "$rate" "$cpu" "$us" "${RMAX[i]}" "$(window_ms "$w50")" "$(window_ms "$w99")" "$pgcpu" "$created_per_s" >>"$SUMMARY"
    done
    if (( nhubs > 1 )); then
        say "$cfg total: $total_rate checks/s (expected $(num %.1f "$MONITORS / $INTERVAL"); both hubs checking everything would be $(num %.1f "$nhubs * $MONITORS / $INTERVAL")), hub CPU sum $total_cpu %"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$cfg" "sum" "$total_rate" "$total_cpu" "$(num %.0f "($total_rate > 0) ? 1e4 * $total_cpu / $total_rate : 0")" - - - "$pgcpu" - >>"$SUMMARY"
    fi
    if [[ $engine == postgres && ${PG_STATS:-0} == 1 ]]; then
        say "$cfg statements over the window (calls, total, mean, rows):"
        pg_stat_top "$db" 12 | sed 's/^/  /' | tee -a "$OUT"
    fi
    [[ $engine == postgres ]] && say "$cfg PostgreSQL server CPU over the window: $pgcpu % of one core ($(pg_psql "$db" 'SELECT count(*) FROM check_results') check_results rows)"
    # HOT updates rewrite a row in its own page without touching the
    # indexes; a low ratio on `monitors` means every result grows them.
    [[ $engine == postgres ]] && say "$cfg monitors table: $(pg_psql "$db" "SELECT 'updates ' || n_tup_upd || ', HOT ' || n_tup_hot_upd || ' (' || CASE WHEN n_tup_upd > 0 THEN round(100.0 * n_tup_hot_upd / n_tup_upd, 1) ELSE 0 END || ' %), dead ' || n_dead_tup || ', ' || pg_size_pretty(pg_total_relation_size('monitors')) FROM pg_stat_user_tables WHERE relname = 'monitors'")"
    say "loadavg $(loadavg); $(busy_others)"
    for ((i = 1; i <= nhubs; i++)); do
        errs=$(grep -ci -e error -e warn "${LOG[i]}" || true)
        say "serve log hub $i: $(wc -l <"${LOG[i]}") lines, $errs with error/warn"
        grep -i -e error -e warn "${LOG[i]}" | head -n 5 | sed 's/^/  /' | tee -a "$OUT" || true
        grep -e 'rebalanced' -e 'cluster view' "${LOG[i]}" | tail -n 2 | sed 's/^/  /' | tee -a "$OUT" || true
        cp "${LOG[i]}" "$OUT_DIR/scheduler-$STAMP.$engine-$nhubs-hub$i.serve.log"
    done
    for ((i = nhubs; i >= 1; i--)); do stop_pid "${PID[i]}"; done
    HUB_PIDS=""
}

if [[ ${SKIP_HUB:-0} != 1 ]]; then
    for engine in "${ENGINE_LIST[@]}"; do
        for h in "${HUB_LIST[@]}"; do
            if [[ $engine == sqlite && $h != 1 ]]; then
                say ""; say "(sqlite x$h skipped: one hub per SQLite file)"; continue
            fi
            for shape in "${SHAPE_LIST[@]}"; do run_config "$engine" "$h" "$shape"; done
        done
    done
fi

# --- full speed: blackbox vs CheckBench ------------------------------------------
BB_RATE="" CB_BEST=""
if [[ ${SKIP_COMPARE:-0} != 1 ]]; then
    say ""
    say "== full speed against $TARGET, ${BENCH_SECONDS}s each (hub stopped); loadavg $(loadavg); $(busy_others)"
    BB_PORT=$("$FIRSTOK" port)
    mkdir -p "$TMP/bb"
    cat >"$TMP/bb/blackbox.yml" <<BBEOF
modules:
  http_2xx:
    prober: http
    timeout: 10s
    http:
      preferred_ip_protocol: ip4
      valid_status_codes: []
BBEOF
    prometheus-blackbox-exporter --config.file="$TMP/bb/blackbox.yml" --web.listen-address="127.0.0.1:$BB_PORT" \
        --log.level=warn >"$TMP/bb/bb.log" 2>&1 &
    BB_PID=$!
    "$FIRSTOK" wait "$BB_PORT" 10000 /metrics || { cat "$TMP/bb/bb.log" >&2; die "blackbox exporter did not answer"; }
    PROBE="http://127.0.0.1:$BB_PORT/probe?target=$TARGET&module=http_2xx"
    curl -fsS "$PROBE" | grep -q '^probe_success 1' || die "blackbox probe of $TARGET did not succeed"
    bbv=$(prometheus-blackbox-exporter --version 2>&1 | head -n1 | awk '{print $3}')
    k0=$(cpu_ticks "$BB_PID")
    raw=$(wrk -t2 -c"$BB_CONNECTIONS" -d"${BENCH_SECONDS}s" --latency "$PROBE")
    k1=$(cpu_ticks "$BB_PID")
    read -r BB_RATE bb_p99 bb_non2xx bb_errs < <(parse_wrk <<<"$raw")
    bb_n=$(wrk_requests <<<"$raw")
    say "$(printf '%-34s %10.0f checks/s  p99 %8.2f ms  %s µs CPU/check  RSS %s kB  non-2xx %s  socket errors %s' \
        "blackbox $bbv (wrk -t2 -c$BB_CONNECTIONS)" "$BB_RATE" "$bb_p99" \
        "$(num %.0f "($bb_n > 0) ? 1e6 * ($k1 - $k0) / $CLK_TCK / $bb_n : 0")" "$(rss_kb "$BB_PID")" "$bb_non2xx" "$bb_errs")"
    # A failed probe still answers 200 (probe_success 0): check one after the load.
    curl -fsS "$PROBE" | grep -q '^probe_success 1' || say "  !! blackbox probe fails after the load"
    stop_pid "$BB_PID"; BB_PID=""

    CB_BEST=0
    for c in $CHECKBENCH_CONCURRENCY; do
        line=$(/usr/bin/time -f 'cpu_s=%U+%S maxrss_kb=%M' -o "$TMP/cb.time" \
            "$CHECKBENCH" "$TARGET" --concurrency "$c" --seconds "$BENCH_SECONDS" --loops "$CHECKBENCH_LOOPS")
        rate=$(sed -n 's/.*checks_per_s=\([0-9.]*\).*/\1/p' <<<"$line" | head -n1)
        n=$(sed -n 's/^checks=\([0-9]*\).*/\1/p' <<<"$line")
        errors=$(sed -n 's/.* errors=\([0-9]*\).*/\1/p' <<<"$line")
        cpu=$(sed -n 's/cpu_s=\([0-9.+]*\).*/\1/p' "$TMP/cb.time" | tr '+' ' ' | awk '{print $1 + $2}')
        maxrss=$(sed -n 's/.*maxrss_kb=\([0-9]*\).*/\1/p' "$TMP/cb.time")
        say "$(printf '%-34s %10.0f checks/s  %s µs CPU/check  maxRSS %s kB  errors %s' \
            "CheckBench c=$c loops=$CHECKBENCH_LOOPS" "$rate" \
            "$(num %.0f "($n > 0) ? 1e6 * $cpu / $n : 0")" "$maxrss" "$errors")"
        grep -q first_error <<<"$line" && say "  $(grep first_error <<<"$line")"
        CB_BEST=$(num %.1f "($rate > $CB_BEST) ? $rate : $CB_BEST")
        sleep 1
    done
    RATIO=$(num %.2f "($BB_RATE > 0) ? $CB_BEST / $BB_RATE : 0")
    say "ratio CheckBench (best) / blackbox: ${RATIO}x; loadavg $(loadavg)"
fi

# --- verdicts -------------------------------------------------------------------
say ""
say "== targets"
verdict() { if (( $(num %d "($1) ? 1 : 0") )); then echo ok; else echo MISSED; fi; }
if [[ -s $SUMMARY ]]; then
    say "hub targets: CPU < $TARGET_CPU % of one core, RSS < $TARGET_RSS_MB MB, lateness p99 over the window < $TARGET_P99_MS ms (per hub);"
    say "x ref = ratio to sqlite x1 hub 1 in this run (CPU %, µs/check)"
    say "$(printf '%-12s %4s %9s %7s %9s %8s %7s %7s %8s %8s %8s  %s' config hub 'checks/s' 'CPU %' 'µs/check' 'RSS MB' 'p50<=ms' 'p99<=ms' 'pg CPU%' 'CPU xref' 'µs xref' verdict)"
    awk -F'\t' -v tc="$TARGET_CPU" -v tr="$TARGET_RSS_MB" -v tp="$TARGET_P99_MS" '
        { row[NR] = $0; if ($1 == "sqlite x1" && $2 == 1) { rc = $4; ru = $5 } }
        END {
            for (i = 1; i <= NR; i++) {
                split(row[i], f, "\t")
                v = "-"
                if (f[2] != "sum") v = (f[4] < tc && f[6] < tr * 1024 && f[8] < tp) ? "ok" : "MISSED"
                printf "%-12s %4s %9.1f %7.1f %9s %8s %7s %7s %8s %8s %8s  %s\n", f[1], f[2], f[3], f[4], f[5],
                    (f[6] == "-") ? "-" : sprintf("%.1f", f[6] / 1024), f[7], f[8], f[9],
                    (rc > 0) ? sprintf("%.2fx", f[4] / rc) : "-", (ru > 0 && f[5] > 0) ? sprintf("%.2fx", f[5] / ru) : "-", v
            }
        }' "$SUMMARY" | tee -a "$OUT"
    # Each "deps" configuration beside the same engine and hubs without them
    # (issue 17: at most 10 % more hub CPU per check).
    awk -F'\t' '
        $2 != "sum" { us[$1 "|" $2] = $5; cpu[$1 "|" $2] = $4 }
        END {
            for (k in us) {
                split(k, p, "|"); base = p[1]; sub(/ deps$/, "", base)
                if (base == p[1] || !((base "|" p[2]) in us) || us[base "|" p[2]] == 0) continue
                r = us[k] / us[base "|" p[2]]
                printf "%s hub %s: %s µs/check vs %s without dependencies = %.2fx (target <= 1.10x): %s\n",
                    p[1], p[2], us[k], us[base "|" p[2]], r, (r <= 1.10) ? "ok" : "MISSED"
            }
        }' "$SUMMARY" | tee -a "$OUT"
fi
if [[ -n $CB_BEST ]]; then
    say "full speed CheckBench $CB_BEST vs blackbox $BB_RATE checks/s = ${RATIO}x (target >= ${TARGET_RATIO}x): $(verdict "$RATIO >= $TARGET_RATIO")"
fi
say "loadavg at the end $(loadavg)"
say "saved: $OUT"
