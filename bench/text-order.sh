#!/usr/bin/env bash
# Writes Sources/pingtxt/text-order.txt: the functions of the release binary
# that start-up and an idle hub run, then those the bench load runs
# (/healthz, /api/me), as section names for gold's --section-ordering-file
# (Package.swift). Why: the kernel maps 64 KB of the binary around each page
# fault, so start-up code scattered over the whole text kept nearly all of
# it resident (bench/README.md, "Idle RSS").
#
#   bench/text-order.sh                 # build, profile, rewrite the file
#   SKIP_BUILD=1 IDLE=40 bench/text-order.sh
#
# Regenerate after changes to start-up or idle code (new threads, jobs,
# migrations) and check with `SKIP_BUILD=1 REPEAT=5 bench/startup.sh`: a
# function missing from the list still works, it only lands among the
# cold code. SwiftPM does not relink for a changed order file alone: remove
# the binary first (`rm .build/release/pingtxt`, then the release build).
# The names are the compiler's: a new toolchain needs a new file too.
#
# How: the hub runs under valgrind's callgrind (exact: every function that
# ran, not a sample), twice: a first start on a new database with the first
# admin (migrations, password hashing), idle IDLE seconds, then a start on
# that database (what a restart runs), idle, and wrk on the two bench
# routes. A callgrind dump after each phase lists the functions of that
# phase. Needs valgrind and wrk (installed if missing). Takes ~2 min.
# Environment: IDLE=25 (s; the 15 s reminder and 20 s Live Activity ticks
# fall in it), SKIP_BUILD=1, PINGTXT_BIN=path (unstripped), OUT_FILE.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

IDLE=${IDLE:-25}
OUT_FILE=${OUT_FILE:-$ROOT/Sources/pingtxt/text-order.txt}

need_pkgs "valgrind callgrind_control wrk" valgrind wrk
build_firstok
build_pingtxt

bench_begin text-order HUB_PID
# valgrind 3.19 cannot read the DWARF 5 of this toolchain: profile a copy
# without debug information (the symbol table, which names functions, stays).
HUB="$TMP/pingtxt"
strip --strip-debug -o "$HUB" "$BIN"
PORT=$("$FIRSTOK" port)
export PINGTXT_SERVER_LISTEN="127.0.0.1:$PORT" PINGTXT_DATABASE_PATH="$TMP/db/pingtxt.db"
export PINGTXT_SERVER_ACCESS_LOG=false
mkdir -p "$TMP/db"

# One hub under callgrind; $1 = run name. Counts start at zero after each
# `callgrind_control --dump`, so each dump file holds one phase.
start_profiled() {
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$TMP/$1.%p" \
        "$HUB" serve >>"$TMP/serve.log" 2>&1 &
    HUB_PID=$!
    "$FIRSTOK" wait "$PORT" 120000 || { tail -n 20 "$TMP/serve.log" >&2; die "the hub did not answer under valgrind"; }
}
dump_phase() { callgrind_control --dump "$HUB_PID" >/dev/null 2>&1; sleep 1; }

log "first start (new database, first admin) under callgrind, idle ${IDLE}s"
PINGTXT_ADMIN_EMAIL=order@example.com PINGTXT_ADMIN_PASSWORD=order-password-123 start_profiled first
sleep "$IDLE"
dump_phase
stop_pid "$HUB_PID"; HUB_PID=""

TOKEN=$("$HUB" token create --email order@example.com --scope read --name text-order 2>/dev/null)
[[ $TOKEN == pmk_* ]] || die "token create failed"
log "restart on that database under callgrind, idle ${IDLE}s, then wrk on /healthz and /api/me"
start_profiled again
sleep "$IDLE"
dump_phase
wrk -t1 -c8 -d5s "http://127.0.0.1:$PORT/healthz" >/dev/null
wrk -t1 -c8 -d5s -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/me" >/dev/null
dump_phase
stop_pid "$HUB_PID"; HUB_PID=""

# Function names of the binary's own object, per phase. Callgrind writes
# `ob=(id) path` / `fn=(id) name` once and then only the `(id)`; a name
# with a `'N` suffix is a recursion level of the same function.
functions_of() {   # files... -> names, one a line
    awk -v bin="$HUB" '
        FNR == 1 { delete obname; delete fnname; cur = "" }
        /^c?ob=/ { id = $1; sub(/^c?ob=/, "", id); if (NF > 1) obname[id] = $2
                   if ($0 ~ /^ob=/) cur = obname[id]; next }
        /^c?fn=/ { id = $1; sub(/^c?fn=/, "", id)
                   if (NF > 1) { name = $0; sub(/^[^ ]* /, "", name); fnname[id] = name }
                   if ($0 ~ /^fn=/ && cur == bin) { n = fnname[id]; sub(/'"'"'[0-9]+$/, "", n); print n } }
    ' "$@" | grep -v '^0x' | sort -u
}
# Dumps are numbered: <run>.<pid>.1 is each run's start-up and idle, again's
# .2 its load (the file without a number is the exit's, not used).
shopt -s nullglob
startup_files=("$TMP"/first.*.1 "$TMP"/again.*.1)
load_files=("$TMP"/again.*.2)
[[ ${#startup_files[@]} == 2 && ${#load_files[@]} == 1 ]] || die "callgrind dumps missing: $(ls "$TMP")"
functions_of "${startup_files[@]}" >"$TMP/startup.txt"
functions_of "${load_files[@]}" | grep -vxF -f "$TMP/startup.txt" >"$TMP/load.txt" || true

{
    echo "# gold --section-ordering-file for the pingtxt release binary (Package.swift)."
    echo "# Written by bench/text-order.sh from $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'); regenerate it, do not edit."
    echo "# Start-up and idle: $(wc -l <"$TMP/startup.txt") functions."
    sed 's/^/.text./' "$TMP/startup.txt"
    # C and C++ static constructors (all run before main) and the cold
    # parts clang splits off C/C++ functions (.text.unlikely.NAME).
    echo ".text.startup"
    grep -v '^\$s' "$TMP/startup.txt" | sed 's/^/.text.unlikely./' 
    echo "# Then /healthz and /api/me: $(wc -l <"$TMP/load.txt") more."
    sed 's/^/.text./' "$TMP/load.txt"
} >"$OUT_FILE"
log "wrote $OUT_FILE ($(wc -l <"$TMP/startup.txt") start-up and idle functions, $(wc -l <"$TMP/load.txt") more for the load)"
