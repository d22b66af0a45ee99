# syntax=docker/dockerfile:1
#
# pingtxt hub: multi-stage image.
#
#   docker build -t pingtxt .
#   docker run -d --name pingtxt -p 8080:8080 -v pingtxt-data:/data \
#     -e PINGTXT_ADMIN_EMAIL=you@example.com -e PINGTXT_ADMIN_PASSWORD=... pingtxt
#   docker exec pingtxt pingtxt token create --email you@example.com --scope read
#
# The build stage and the runtime stage are both Debian 12 (bookworm): the
# binary needs glibc >= 2.35 and GLIBCXX_3.4.29, which bookworm has (2.36).
# Keep the two stages on the same Debian release.

ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

# ---------------------------------------------------------------- build ----
FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends libsqlite3-dev libssl-dev libpq-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# No package dependencies (Package.swift has none), so nothing to resolve first.
COPY Package.swift ./
COPY Sources ./Sources
COPY Resources ./Resources
# SwiftPM checks every declared target's folder, test targets included.
COPY Tests ./Tests
# Static Swift stdlib: the runtime stage needs no Swift libraries
# (works because pingtxt does not use FoundationNetworking). The cache id
# changes when Package.swift's compiler flags do: SwiftPM does not recompile
# objects for a changed -Xfrontend flag (the idle-memory layout needs every
# object built with -function-sections; docs/design.md "Idle memory").
RUN --mount=type=cache,id=pingtxt-build-function-sections,target=/src/.build \
    swift build -c release --static-swift-stdlib --product pingtxt \
 && install -D -m 0755 "$(swift build -c release --show-bin-path)/pingtxt" /out/pingtxt \
 && strip /out/pingtxt

# -------------------------------------------------------------- runtime ----
FROM ${RUNTIME_IMAGE}
# Exactly what `ldd pingtxt` lists beyond libc/libm/libgcc_s (already in the
# slim image): libsqlite3.so.0 (libsqlite3-0), libssl.so.3 + libcrypto.so.3
# (libssl3), libstdc++.so.6 (libstdc++6); and libpq.so.5 (libpq5), which
# ldd does not list: the hub opens it only when the database is PostgreSQL
# (docs/postgres.md). ca-certificates for outgoing TLS checks; tzdata for
# heartbeat cron schedules in named time zones (the hub reads
# /usr/share/zoneinfo itself). No curl/wget: the HEALTHCHECK below uses
# bash's /dev/tcp.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libsqlite3-0 libssl3 libpq5 libstdc++6 ca-certificates tzdata \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 pingtxt \
 && useradd --system --uid 10001 --gid pingtxt --home-dir /data --no-create-home --shell /usr/sbin/nologin pingtxt \
 && install -d -o pingtxt -g pingtxt -m 0700 /data

COPY --from=build /out/pingtxt /usr/local/bin/pingtxt

ENV PINGTXT_DATABASE_PATH=/data/pingtxt.db \
    PINGTXT_SERVER_LISTEN=0.0.0.0:8080
# Ping monitors (docs/monitoring.md#ping) use unprivileged ICMP datagram
# sockets: the container's net.ipv4.ping_group_range must include gid 10001,
# e.g. `docker run --sysctl net.ipv4.ping_group_range="10001 10001"` (recent
# Docker engines set "0 2147483647" in containers already). As a non-root
# user the raw-socket fallback would need CAP_NET_RAW as a file capability.
USER pingtxt:pingtxt
WORKDIR /data
VOLUME /data
EXPOSE 8080

# Liveness without extra packages: bash (in the slim image) opens a TCP
# connection to the port from PINGTXT_SERVER_LISTEN via /dev/tcp, sends
# GET /healthz and looks for a 200 status line. /healthz is answered on the
# event loop, so this stays cheap even under load.
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${PINGTXT_SERVER_LISTEN##*:} && printf 'GET /healthz HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q '^HTTP/1\\.[01] 200 '"]

# pingtxt blocks SIGTERM/SIGINT and takes them with sigwait, so it stops
# gracefully as PID 1 (docker stop) without an init shim.
ENTRYPOINT ["pingtxt"]
CMD ["serve"]
