# Throwaway PostgreSQL cluster for the bench/*.sh scripts. Sourced after
# lib.sh and bench_begin (it uses $TMP, $FIRSTOK, log/die and the exit hooks).
#
#   pg_start            initdb into $TMP/pg as the postgres user, start it on a
#                       free 127.0.0.1 port (socket in $TMP/pg), fsync on;
#                       sets PG_PORT, PG_DIR, PG_VERSION; pg_stop is registered
#                       as an exit hook (pg_ctl stop -m fast, then the pid)
#   pg_createdb NAME    creates database NAME, prints its URL for
#                       PINGTXT_DATABASE_URL (postgres://postgres@127.0.0.1:PORT/NAME)
#   pg_psql NAME SQL    one query, unaligned tuples only
#   pg_cpu_ticks        utime+stime of the postmaster and every live backend,
#                       plus the reaped children's (cutime+cstime): the
#                       server's CPU in clock ticks, for deltas over a window
#   pg_settings         the settings that matter for durability, one line
#   pg_own_pids         the postmaster and its children (busy_others skips them)
#   pg_stat_reset DB / pg_stat_top DB [N]
#                       with PG_STATS=1 (pg_stat_statements preloaded): reset,
#                       and the N (12) statements with the most total time:
#                       calls, total ms, mean µs, rows, the query's first 90 chars
#
# PostgreSQL refuses to run as root: initdb and pg_ctl run through
# `runuser -u postgres --`, in a directory that user owns. The binaries are
# Debian's (PG_BIN, default /usr/lib/postgresql/15/bin). Durability is on as
# shipped: fsync=on, synchronous_commit=on, full_page_writes=on, wal_sync_method
# default; only shared_buffers is raised (PG_SHARED_BUFFERS, 128MB) and
# max_connections set (PG_MAX_CONNECTIONS, 100). Extra server options: PG_OPTS.

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_SHARED_BUFFERS=${PG_SHARED_BUFFERS:-128MB}
PG_MAX_CONNECTIONS=${PG_MAX_CONNECTIONS:-100}
PG_PORT="" PG_DIR="" PG_VERSION=""

pg_as() { runuser -u postgres -- "$@"; }

pg_start() {
    [[ -x $PG_BIN/initdb && -x $PG_BIN/pg_ctl ]] || die "no PostgreSQL binaries in $PG_BIN (apt-get install postgresql)"
    id postgres >/dev/null 2>&1 || die "no postgres user (the postgresql package creates it)"
    PG_DIR="$TMP/pg"
    chmod 755 "$TMP"
    mkdir -p "$PG_DIR"
    chown postgres: "$PG_DIR"
    chmod 700 "$PG_DIR"
    pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$PG_DIR/initdb.log" 2>&1 \
        || { cat "$PG_DIR/initdb.log" >&2; die "initdb failed"; }
    PG_PORT=$("$FIRSTOK" port)
    bench_on_exit pg_stop
    pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 30 \
        -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DIR -c fsync=on -c synchronous_commit=on -c full_page_writes=on -c shared_buffers=$PG_SHARED_BUFFERS -c max_connections=$PG_MAX_CONNECTIONS $([[ ${PG_STATS:-0} == 1 ]] && echo "-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all") ${PG_OPTS:-}" \
        start >"$PG_DIR/pg_ctl.log" 2>&1 || { cat "$PG_DIR/pg_ctl.log" "$PG_DIR/server.log" >&2; die "pg_ctl start failed"; }
    PG_VERSION=$(pg_psql postgres 'SHOW server_version')
    log "PostgreSQL $PG_VERSION on 127.0.0.1:$PG_PORT (data $PG_DIR/data)"
}

pg_psql() { "$PG_BIN/psql" -X -q -At -h 127.0.0.1 -p "$PG_PORT" -U postgres -d "$1" -c "$2"; }

pg_createdb() {
    pg_psql postgres "CREATE DATABASE \"$1\"" >/dev/null || die "CREATE DATABASE $1 failed"
    [[ ${PG_STATS:-0} == 1 ]] && pg_psql "$1" 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements' >/dev/null
    echo "postgres://postgres@127.0.0.1:$PG_PORT/$1"
}

pg_postmaster_pid() { head -n1 "$PG_DIR/data/postmaster.pid" 2>/dev/null || true; }

pg_cpu_ticks() {
    local pm c sum=0
    pm=$(pg_postmaster_pid)
    [[ -n $pm ]] || { echo 0; return; }
    # fields after the ")": 12 utime 13 stime 14 cutime 15 cstime
    sum=$(awk '{ sub(/^.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$pm/stat" 2>/dev/null || echo 0)
    for c in $(cat "/proc/$pm/task/$pm/children" 2>/dev/null); do
        sum=$((sum + $(cpu_ticks "$c")))
    done
    echo "$sum"
}

pg_own_pids() {
    local pm
    pm=$(pg_postmaster_pid)
    [[ -n $pm ]] && echo "$pm $(cat "/proc/$pm/task/$pm/children" 2>/dev/null)"
}

pg_stat_reset() { [[ ${PG_STATS:-0} == 1 ]] && pg_psql "$1" 'SELECT pg_stat_statements_reset()' >/dev/null; return 0; }
pg_stat_top() {
    [[ ${PG_STATS:-0} == 1 ]] || return 0
    pg_psql "$1" "SELECT lpad(calls::text, 8) || lpad(round(total_exec_time)::text, 8) || ' ms' || lpad(round(1000 * mean_exec_time)::text, 7) || ' µs' || lpad(rows::text, 9)
        || '  ' || left(regexp_replace(query, '\s+', ' ', 'g'), 90) FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY total_exec_time DESC LIMIT ${2:-12}"
}

pg_settings() {
    pg_psql postgres "SELECT string_agg(name || '=' || setting, ' ' ORDER BY name) FROM pg_settings
        WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'wal_sync_method', 'shared_buffers', 'max_connections', 'commit_delay')"
}

pg_stop() {
    [[ -n $PG_DIR && -f $PG_DIR/data/postmaster.pid ]] || return 0
    local pm
    pm=$(pg_postmaster_pid)
    pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w -t 20 stop >/dev/null 2>&1 || true
    if [[ -n $pm ]] && kill -0 "$pm" 2>/dev/null; then kill -KILL "$pm" 2>/dev/null || true; fi
    # keep the server log for the record when the caller wants it
    [[ -n ${PG_KEEP_LOG:-} && -f $PG_DIR/server.log ]] && cp "$PG_DIR/server.log" "$PG_KEEP_LOG" || true
}
