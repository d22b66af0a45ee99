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
#     checks in flight. At the end: lateness p50/p99 from /metrics
#     (cumulative since start, so the creation burst is in it too).
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
#   SKIP_HUB=1 (only the full-speed comparison) SKIP_COMPARE=1 (only the hub part)
#   PERF=1 PERF_SECONDS=60: perf record the hub during the window, top lists
#   to bench/out/scheduler-<date>.perf.txt
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

need_pkgs "wrk nginx curl python3" wrk nginx-light curl python3
need_pkgs "prometheus-blackbox-exporter" prometheus-blackbox-exporter
build_firstok
[[ ${SKIP_HUB:-0} == 1 ]] || build_pingtxt
[[ ${SKIP_COMPARE:-0} == 1 ]] || build_checkbench

bench_begin scheduler HUB_PID BB_PID NGINX_PID
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

# --- hub under MONITORS monitors ------------------------------------------------
HUB_CPU="" HUB_RSS_MAX_KB="" P50="" P99=""
if [[ ${SKIP_HUB:-0} != 1 ]]; then
    HUB_PORT=$("$FIRSTOK" port)
    hub_env "$HUB_PORT" "$TMP/hub"
    [[ -n ${MAX_CONCURRENT:-} ]] && export PINGTXT_CHECKS_MAX_CONCURRENT=$MAX_CONCURRENT
    HUB="http://127.0.0.1:$HUB_PORT"
    cp "$BIN" "$HUBD"
    "$HUBD" serve >"$TMP/hub/serve.log" 2>&1 &
    HUB_PID=$!
    "$FIRSTOK" wait "$HUB_PORT" 15000 /healthz || { tail -n 20 "$TMP/hub/serve.log" >&2; die "pingtxt serve did not answer"; }
    TOKEN=$("$BIN" token create --email "$PINGTXT_ADMIN_EMAIL" --scope write --name sched-bench)
    [[ $TOKEN == pmk_* ]] || die "token create printed '$TOKEN'"
    metrics() { curl -fsS -H "Authorization: Bearer $TOKEN" "$HUB/metrics"; }

    say ""
    say "== hub: $MONITORS http monitors, interval ${INTERVAL}s (expected $(num %.1f "$MONITORS / $INTERVAL") checks/s)," \
        "max_concurrent ${PINGTXT_CHECKS_MAX_CONCURRENT:-default}, binary $BIN"
    say "RSS before creation: $(rss_kb "$HUB_PID") kB"
    c0=$(cpu_ticks "$HUB_PID")
    created=$(python3 "$BENCH_DIR/api.py" http "$HUB" "$TOKEN" "$MONITORS" "$TARGET" "$INTERVAL")
    c1=$(cpu_ticks "$HUB_PID")
    say "creation: $created (one keep-alive connection; hub CPU during creation $(num %.1f "($c1 - $c0) / $CLK_TCK") s);" \
        "RSS after: $(rss_kb "$HUB_PID") kB; loadavg $(loadavg)"
    say "warm-up ${WARMUP}s..."
    sleep "$WARMUP"
    kill -0 "$HUB_PID" 2>/dev/null || { tail -n 20 "$TMP/hub/serve.log" >&2; die "pingtxt serve died during warm-up"; }

    say "$(printf '%8s %10s %8s %10s %10s  %s' 't s' 'checks/s' 'CPU %' 'RSS kB' 'in flight' loadavg)"
    m=$(metrics)
    T0=$(now); K0=$(cpu_ticks "$HUB_PID"); N0=$(metric_value pingtxt_checks_total <<<"$m")
    L0=$(metric_value pingtxt_check_lateness_ms_count <<<"$m")
    W0=$(metric_value pingtxt_db_batched_writes_total <<<"$m")
    tp=$T0 kp=$K0 np=$N0 rss_max=0 rss_sum=0 samples=0
    if [[ ${PERF:-0} == 1 ]]; then
        perf_start "$HUB_PID" "$OUT_DIR/scheduler-$STAMP.perf" "${PERF_SECONDS:-60}"
        say "(perf record -F 999 -g on the hub for ${PERF_SECONDS:-60}s of the window: CPU % includes its overhead)"
    fi
    end=$(num %.3f "$T0 + $DURATION")
    while :; do
        left=$(num %.3f "($end - $(now) > $SAMPLE) ? $SAMPLE : $end - $(now)")
        (( $(num %d "$left > 0.05") )) || break
        sleep "$left"
        kill -0 "$HUB_PID" 2>/dev/null || { tail -n 20 "$TMP/hub/serve.log" >&2; die "pingtxt serve died while sampled"; }
        m=$(metrics); t=$(now); k=$(cpu_ticks "$HUB_PID"); r=$(rss_kb "$HUB_PID")
        n=$(metric_value pingtxt_checks_total <<<"$m"); inflight=$(metric_value pingtxt_checks_in_flight <<<"$m")
        say "$(calc "printf \"%8.0f %10.1f %8.1f %10d %10s  %s\", $t - $T0, ($n - $np) / ($t - $tp), 100 * ($k - $kp) / $CLK_TCK / ($t - $tp), $r, \"$inflight\", \"$(loadavg)\"")"
        (( r > rss_max )) && rss_max=$r
        rss_sum=$((rss_sum + r)); samples=$((samples + 1))
        tp=$t kp=$k np=$n
    done
    T1=$(now); K1=$(cpu_ticks "$HUB_PID"); m=$(metrics)
    N1=$(metric_value pingtxt_checks_total <<<"$m")
    P50=$(metric_value 'pingtxt_check_lateness_ms{quantile="0.5"}' <<<"$m")
    P99=$(metric_value 'pingtxt_check_lateness_ms{quantile="0.99"}' <<<"$m")
    L1=$(metric_value pingtxt_check_lateness_ms_count <<<"$m")
    W1=$(metric_value pingtxt_db_batched_writes_total <<<"$m")
    B1=$(metric_value pingtxt_db_batches_total <<<"$m")
    HUB_RSS_MAX_KB=$rss_max
    if [[ ${PERF:-0} == 1 ]]; then
        perf_report "$OUT_DIR/scheduler-$STAMP.perf"
        say "profile: $OUT_DIR/scheduler-$STAMP.perf.txt"
    fi
    HUB_RATE=$(num %.1f "($N1 - $N0) / ($T1 - $T0)")
    HUB_CPU=$(num %.1f "100 * ($K1 - $K0) / $CLK_TCK / ($T1 - $T0)")
    US_PER_CHECK=$(num %.0f "($N1 - $N0 > 0) ? 1e6 * ($K1 - $K0) / $CLK_TCK / ($N1 - $N0) : 0")
    say ""
    say "hub over ${DURATION}s: $HUB_RATE checks/s, CPU $HUB_CPU % of one core ($US_PER_CHECK µs CPU per check)," \
        "RSS max $rss_max kB / mean $(( samples > 0 ? rss_sum / samples : 0 )) kB"
    say "lateness (cumulative since start, $L1 samples, $((L1 - L0)) in the window): p50 $P50 ms, p99 $P99 ms"
    say "db batched writes in the window: $((W1 - W0)) (total $W1 in $B1 batches); threads $(threads_of "$HUB_PID"); loadavg $(loadavg); $(busy_others)"
    errs=$(grep -ci 'error' "$TMP/hub/serve.log" || true)
    say "serve log: $(wc -l <"$TMP/hub/serve.log") lines, $errs with 'error'"
    grep -i 'error' "$TMP/hub/serve.log" | head -n 3 | sed 's/^/  /' | tee -a "$OUT" || true
    stop_pid "$HUB_PID"; HUB_PID=""
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
if [[ -n $HUB_CPU ]]; then
    say "hub CPU   $HUB_CPU % of one core (target < $TARGET_CPU %): $(verdict "$HUB_CPU < $TARGET_CPU")"
    say "hub RSS   max $(num %.1f "$HUB_RSS_MAX_KB / 1024") MB (target < $TARGET_RSS_MB MB): $(verdict "$HUB_RSS_MAX_KB < $TARGET_RSS_MB * 1024")"
    say "lateness  p99 $P99 ms, p50 $P50 ms (target p99 < $TARGET_P99_MS ms): $(verdict "$P99 < $TARGET_P99_MS")"
fi
if [[ -n $CB_BEST ]]; then
    say "full speed CheckBench $CB_BEST vs blackbox $BB_RATE checks/s = ${RATIO}x (target >= ${TARGET_RATIO}x): $(verdict "$RATIO >= $TARGET_RATIO")"
fi
say "loadavg at the end $(loadavg)"
say "saved: $OUT"
