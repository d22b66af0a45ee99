#!/usr/bin/env bash
# The monitor lists and pages at 500,000 monitors (issue 20): p50/p99 of
# GET /api/monitors (limit=500, ?q=, ?status=, ?tag=), the dashboard (page 1,
# a later page, search, filters) and a public status page of 1,000 monitors
# (HTML and JSON), on SQLite and/or PostgreSQL.
#
#   bench/pages.sh                              # SQLite, 500,000 monitors
#   ENGINES=sqlite,postgres bench/pages.sh      # both (PostgreSQL: bench/pg.sh)
#   MONITORS=100000 REQUESTS=40 SKIP_BUILD=1 bench/pages.sh
#   LOAD=250000 bench/pages.sh                  # under check load (below)
#
# Seeding 500,000 monitors through the API runs at ~1,000/s, so the hub
# creates its database and one template monitor through the API, is stopped,
# and the rest is written with SQL (sqlite3 / psql) into that database,
# copying the template's settings and filling every column the hub fills
# (search, tags and monitor_tags, status, next due). Monitors get
# interval 86400 and a stored next due ~23.9 h away, which the scheduler keeps
# (SchedulePlan.firstDue), so the hub runs no check during the bench; about
# 1% are paused. The status page lists the 1,000 monitors tagged `page`, with
# 89 days of daily roll-ups, today's hourly roll-ups and the current hour's
# raw results (one a minute).
#
# LOAD=N (default 0): the first N monitors are http checks of a loopback
# nginx (/ok.json) every 60 s instead, with no stored next due (each takes
# its grid slot, spread over the minute), so the lists are timed while the
# hub runs N/60 checks a second. The hub gets WARMUP seconds (default 75)
# first; the checks done and the hub's CPU during the timings are printed.
#
# HOLD=S keeps each engine's hub (and its load) running S seconds after the
# timings, its address and database printed, to look at it by hand.
#
# Each URL: 3 warm-up requests, then REQUESTS (default 60) sequential curl
# requests; p50 and p99 (nearest rank) of curl's time_total, in ms. The
# status pages are built for every request here ([status_pages]
# cache_seconds = 0), so these lines time a build.
#
# CROWD=C (default 16; 0 = skip): then the HTML status page is read by C
# keep-alive clients at once for CROWD_SECONDS (default 10) with wrk, once
# on a hub restarted with cache_seconds = 0 and once with the default 10:
# requests a second and p99 for each, the ratio between them.
# Output: bench/out/pages-<stamp>.txt. The machine is shared: the load
# average is printed with each engine's table.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

MONITORS=${MONITORS:-500000}
REQUESTS=${REQUESTS:-60}
LOAD=${LOAD:-0}
WARMUP=${WARMUP:-75}
HOLD=${HOLD:-0}
CROWD=${CROWD:-16}
CROWD_SECONDS=${CROWD_SECONDS:-10}
command -v sqlite3 >/dev/null || need_pkgs sqlite3 sqlite3
command -v curl >/dev/null || need_pkgs curl curl
parse_engines
build_firstok
build_pingtxt
bench_begin pages HUB_PID NGINX_PID
chmod 755 "$TMP"

HUB_PORT=$("$FIRSTOK" port)
BASE="http://127.0.0.1:$HUB_PORT"
if ((LOAD > 0)); then
    command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || need_pkgs nginx nginx-light
    NGINX_PORT=$("$FIRSTOK" port)
    mkdir -p "$TMP/ngx/www"; printf '{"status":"ok"}' >"$TMP/ngx/www/ok.json"
    start_nginx "$TMP/ngx" "$NGINX_PORT" /ok.json
fi
if has_engine postgres; then
    pg_start
    PG_URL=$(pg_createdb pagesbench)
fi

start_hub() {
    "$BIN" serve >>"$TMP/hub-$1.log" 2>&1 &
    HUB_PID=$!
    "$FIRSTOK" wait "$HUB_PORT" 120000 /healthz || { tail -n 30 "$TMP/hub-$1.log" >&2; die "pingtxt serve did not answer"; }
}

# The hex of a rollup_days blob (Store/RollupDayCodec.swift, version 1) whose
# first $1 hours of the day each hold 60 up checks of 40 ms: the version, the
# 3-byte mask of hours, then per hour flags 8 (a latency sum follows), up 60,
# latency sum 2400 (zigzag varint c0 25), one histogram pair: bucket 11, 60.
hours_blob() {
    local n=$1 mask=$(((1 << $1) - 1)) hex h
    hex=$(printf '01%02x%02x%02x' $((mask & 255)) $(((mask >> 8) & 255)) $(((mask >> 16) & 255)))
    for ((h = 0; h < n; h++)); do hex+="083cc025010b3c"; done
    echo "$hex"
}

# The seed, in each engine's spelling of a number series, padding and a blob.
seed_sql() {   # $1 = engine
    local series pad nl now_ms hour day
    now_ms=$(($(date +%s) * 1000)); hour=$(($(date +%s) / 3600 * 3600)); day=$(($(date +%s) / 86400 * 86400))
    if [[ $1 == sqlite ]]; then
        series() { echo "(WITH RECURSIVE s(i) AS (SELECT $1 UNION ALL SELECT i + 1 FROM s WHERE i < $2) SELECT i FROM s)"; }
        pad() { echo "printf('%06d', $1)"; }
        blob() { echo "X'$1'"; }
        nl="char(10)"
        echo "BEGIN;"
    else
        series() { echo "(SELECT generate_series($1, $2) AS i)"; }
        pad() { echo "lpad(($1)::text, 6, '0')"; }
        blob() { echo "decode('$1', 'hex')"; }
        nl="chr(10)"
        echo "BEGIN;"
    fi
    local words="CASE i % 8 WHEN 0 THEN 'api' WHEN 1 THEN 'web' WHEN 2 THEN 'db' WHEN 3 THEN 'cache' WHEN 4 THEN 'queue' WHEN 5 THEN 'auth' WHEN 6 THEN 'search' ELSE 'mail' END"
    local status="CASE WHEN i % 500 = 0 THEN 'down' WHEN i % 200 = 0 THEN 'degraded' WHEN i % 100 = 0 THEN 'pending' WHEN i % 97 = 0 THEN 'paused' ELSE 'up' END"
    local tags="CASE WHEN i <= 1000 AND i % 10 = 0 THEN '[\"edge\",\"page\"]' WHEN i <= 1000 THEN '[\"page\"]' WHEN i % 10 = 0 THEN '[\"edge\"]' ELSE '[]' END"
    cat <<SQL
INSERT INTO monitors (id, name, type, target, interval, timeout, retries, paused, locations, confirm_locations, settings,
    status, status_since, state, next_due_ms, last_at, last_location, last_status, last_latency_ms, last_status_code,
    created_at, updated_at, tags, search)
SELECT i + 1000, n, 'http', t, CASE WHEN i <= $LOAD THEN 60 ELSE 86400 END, 10, 1, CASE WHEN st = 'paused' THEN 1 ELSE 0 END, tpl.locations, 1, tpl.settings,
    st, $((now_ms / 1000 - 3600)), '{}', CASE WHEN i <= $LOAD THEN NULL ELSE $((now_ms + 86000000)) END, $((now_ms / 1000 - 30)), 'hub', CASE WHEN st = 'down' THEN 'down' ELSE 'up' END,
    40 + i % 50, 200, $((now_ms / 1000 - 86400)), $((now_ms / 1000 - 86400)), tg, lower(n) || $nl || lower(t)
FROM (SELECT i, 'svc-' || $(pad i) || ' ' || $words AS n, CASE WHEN i <= $LOAD THEN 'http://127.0.0.1:${NGINX_PORT:-0}/ok.json?svc' || i ELSE 'https://svc' || i || '.example.com/health' END AS t,
             $status AS st, $tags AS tg FROM $(series 1 "$MONITORS") s) g,
     (SELECT locations, settings FROM monitors WHERE name = 'template') tpl;
DELETE FROM monitors WHERE name = 'template';
INSERT INTO monitor_tags (tag, monitor_id) SELECT 'edge', i + 1000 FROM $(series 1 "$MONITORS") s WHERE i % 10 = 0;
INSERT INTO monitor_tags (tag, monitor_id) SELECT 'page', i + 1000 FROM $(series 1 1000) s;
INSERT INTO status_pages (slug, title, description, monitor_ids, tags, created_at, updated_at)
VALUES ('bench', 'Bench', '', '[]', '["page"]', $((now_ms / 1000)), $((now_ms / 1000)));
INSERT INTO result_rollups (monitor_id, resolution, bucket_start, up, degraded, down, in_maintenance, latency_sum, latency_count, histogram)
SELECT m.i + 1000, 86400, $day - d.i * 86400, 1440 - m.i % 7, 0, m.i % 7, 0, 1440 * 40, 1440, '[]'
FROM $(series 1 1000) m, $(series 1 89) d;
INSERT INTO rollup_days (monitor_id, day_start, hours)
SELECT m.i + 1000, $day, $(blob "$(hours_blob $(((hour - day) / 3600)))") FROM $(series 1 1000) m WHERE $hour > $day;
INSERT INTO check_results (monitor_id, at_ms, location, status, latency_ms, status_code, in_maintenance)
SELECT m.i + 1000, $((hour * 1000)) + k.i * 60000, 'hub', 'up', 40, 200, 0
FROM $(series 1 1000) m, $(series 0 59) k WHERE $((hour * 1000)) + k.i * 60000 < $now_ms;
DELETE FROM meta WHERE key = 'rollup_horizon';
INSERT INTO meta (key, value) VALUES ('rollup_horizon', '$hour');
COMMIT;
SQL
    [[ $1 == sqlite ]] && echo "ANALYZE;" || echo "VACUUM ANALYZE;"
}

run_sql() {   # $1 = engine, SQL on stdin
    if [[ $1 == sqlite ]]; then
        sqlite3 -bail "$TMP/hub/pingtxt.db"
    else
        "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres -d pagesbench >/dev/null
    fi
}

# p50 p99 (ms) of REQUESTS requests; args: label, then curl arguments.
measure() {
    local label=$1; shift
    local i code
    for i in 1 2 3; do curl -s -o /dev/null "$@"; done
    code=$(curl -s -o "$TMP/body" -w '%{http_code} %{size_download}' "$@")
    for i in $(seq "$REQUESTS"); do curl -s -o /dev/null -w '%{time_total}\n' "$@"; done >"$TMP/times"
    sort -n "$TMP/times" | awk -v label="$label" -v code="$code" '
        { t[NR] = $1 * 1000 }
        END { p50 = t[int((NR + 1) / 2)]; r = int(NR * 0.99 + 0.999); if (r > NR) r = NR
              split(code, c, " ")
              printf "%-44s %7.1f %7.1f   %s %9d B\n", label, p50, t[r], c[1], c[2] }' | tee -a "$OUT"
}

cursor() { printf '%s' "$1" | base64 -w0 | tr '+/' '-_' | tr -d '='; }

for engine in "${ENGINE_LIST[@]}"; do
    if [[ $engine == postgres ]]; then hub_env "$HUB_PORT" "$TMP/hub" "$PG_URL"; else hub_env "$HUB_PORT" "$TMP/hub"; fi
    start_hub "$engine"
    TOKEN=$("$BIN" token create --email "$PINGTXT_ADMIN_EMAIL" --scope write --name pages-bench)
    [[ $TOKEN == pmk_* ]] || die "token create printed '$TOKEN'"
    curl -s -o /dev/null -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
        -d '{"name": "template", "type": "http", "target": "https://template.example.com/", "interval": 86400, "paused": true}' \
        "$BASE/api/monitors"
    stop_pid "$HUB_PID"; HUB_PID=""
    log "$engine: seeding $MONITORS monitors"
    t0=$(date +%s)
    seed_sql "$engine" | run_sql "$engine"
    log "$engine: seeded in $(($(date +%s) - t0)) s"
    t0=$(date +%s%N)
    export PINGTXT_STATUS_PAGES_CACHE_SECONDS=0
    start_hub "$engine"
    say ""
    say "== $engine: $MONITORS monitors, $REQUESTS requests per URL, hub start $((($(date +%s%N) - t0) / 1000000)) ms, load $(loadavg)"
    if ((LOAD > 0)); then
        log "$engine: $LOAD monitors checked every 60 s; warm-up ${WARMUP}s"
        sleep "$WARMUP"
        checks() { curl -fsS "${auth[@]}" "$BASE/metrics?monitors=false" | metric_value pingtxt_checks_total; }
    fi
    # A web session: the login form's CSRF cookie and field, then the password.
    jar="$TMP/cookies-$engine"
    csrf=$(curl -s -c "$jar" "$BASE/login" | sed -n 's/.*name="csrf_token" value="\([^"]*\)".*/\1/p' | head -n1)
    curl -s -o /dev/null -b "$jar" -c "$jar" --data-urlencode "csrf_token=$csrf" --data-urlencode "email=$PINGTXT_ADMIN_EMAIL" \
        --data-urlencode "password=$PINGTXT_ADMIN_PASSWORD" --data-urlencode "next=/" "$BASE/login"
    auth=(-H "Authorization: Bearer $TOKEN")
    if ((LOAD > 0)); then c0=$(checks); k0=$(cpu_ticks "$HUB_PID"); s0=$(date +%s%N); fi
    later=$(cursor "3:250000:svc-249000 search")
    say "$(printf '%-44s %7s %7s   %s' "URL" "p50 ms" "p99 ms" "status, size")"
    measure "/api/monitors?limit=500" "${auth[@]}" "$BASE/api/monitors?limit=500"
    measure "/api/monitors?limit=500&q=12345 (rare)" "${auth[@]}" "$BASE/api/monitors?limit=500&q=12345"
    measure "/api/monitors?limit=500&q=nothing-matches" "${auth[@]}" "$BASE/api/monitors?limit=500&q=nothing-matches"
    measure "/api/monitors?limit=500&q=API (common)" "${auth[@]}" "$BASE/api/monitors?limit=500&q=API"
    measure "/api/monitors?limit=500&status=down" "${auth[@]}" "$BASE/api/monitors?limit=500&status=down"
    measure "/api/monitors?limit=500&tag=edge" "${auth[@]}" "$BASE/api/monitors?limit=500&tag=edge"
    measure "/ (dashboard page 1)" -b "$jar" "$BASE/"
    measure "/?after=… (a later page, mid 'up')" -b "$jar" "$BASE/?after=$later"
    measure "/?q=12345" -b "$jar" "$BASE/?q=12345"
    measure "/?q=nothing-matches" -b "$jar" "$BASE/?q=nothing-matches"
    measure "/?status=down" -b "$jar" "$BASE/?status=down"
    measure "/?tag=edge" -b "$jar" "$BASE/?tag=edge"
    measure "/status/bench (1,000 monitors)" "$BASE/status/bench"
    measure "/status/bench.json" "$BASE/status/bench.json"
    if ((LOAD > 0)); then
        c1=$(checks); k1=$(cpu_ticks "$HUB_PID"); s1=$(date +%s%N)
        awk -v c="$((c1 - c0))" -v k="$((k1 - k0))" -v ns="$((s1 - s0))" -v hz="$CLK_TCK" -v want="$LOAD" \
            'BEGIN { s = ns / 1e9; printf "under load: %.1f checks/s (%.1f demanded), hub CPU %.1f %% of one core over the %.0f s of timings\n", c / s, want / 60, 100 * k / hz / s, s }' | tee -a "$OUT"
    fi
    say "load after: $(loadavg); $(busy_others)"
    if ((HOLD > 0)); then
        log "$engine: hub left running ${HOLD}s for inspection: $BASE, token in $TMP/token${PG_URL:+, database $PG_URL}"
        printf '%s\n' "$TOKEN" >"$TMP/token"; sleep "$HOLD"
    fi
    if ((CROWD > 0)) && command -v wrk >/dev/null; then
        base_rps=""
        for cache in 0 10; do
            stop_pid "$HUB_PID"; HUB_PID=""
            export PINGTXT_STATUS_PAGES_CACHE_SECONDS=$cache
            start_hub "$engine"
            curl -s -o /dev/null "$BASE/status/bench"
            read -r rps p99 non2xx errs < <(wrk -t2 -c"$CROWD" -d"${CROWD_SECONDS}s" --latency "$BASE/status/bench" | parse_wrk)
            ratio=""; [[ -n $base_rps ]] && ratio=$(awk -v a="$rps" -v b="$base_rps" 'BEGIN { printf ", %.1fx the rate without", a / b }')
            base_rps=${base_rps:-$rps}
            say "$(printf 'status page, %d clients, cache_seconds=%-2d %8.1f req/s, p99 %7.1f ms, non-2xx %s, socket errors %s%s' \
                "$CROWD" "$cache" "$rps" "$p99" "$non2xx" "$errs" "$ratio")"
        done
    fi
    stop_pid "$HUB_PID"; HUB_PID=""
done
log "written to $OUT"
