#!/usr/bin/env python3
"""Minimal pingtxt API client for the bench scripts: persistent HTTP/1.1
connections (keep-alive; CONNECTIONS=8 in parallel for http monitors),
standard library only.

  api.py http URL TOKEN COUNT TARGET INTERVAL [TIMEOUT]
      creates COUNT http monitors (n1..nCOUNT) checking TARGET; prints
      "created=N seconds=S per_s=R" on stdout. With the environment
      TAGS=T monitor i gets the tag "tag(i mod T)"; with DEPENDENCIES=D the
      last D monitors each depend on one of the first ones (monitor
      COUNT-D+j on monitor j), so D children hang off D parents. With
      BULK=N (1-1000) the monitors go N to a request through
      POST /api/monitors/bulk {"action": "create"} instead.
  api.py heartbeat URL TOKEN COUNT PERIOD GRACE
      creates COUNT heartbeat monitors; prints their ping_url, one a line.
URL is the hub's base URL (http://127.0.0.1:PORT). Exit 1 on any non-201.
"""
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse


def connect(base):
    u = urllib.parse.urlsplit(base)
    return http.client.HTTPConnection(u.hostname, u.port or 80, timeout=60)


def post(conn, token, path, body, status):
    conn.request("POST", path, body=json.dumps(body).encode(), headers={
        "Authorization": "Bearer " + token,
        "Content-Type": "application/json",
        "Connection": "keep-alive",
    })
    resp = conn.getresponse()
    text = resp.read()
    if resp.status != status:
        sys.stderr.write("POST %s -> %d %s\n" % (path, resp.status, text[:300].decode(errors="replace")))
        sys.exit(1)
    return json.loads(text)


def create(conn, token, body):
    return post(conn, token, "/api/monitors", body, 201)


def create_bulk(conn, token, bodies):
    return post(conn, token, "/api/monitors/bulk", {"action": "create", "monitors": bodies}, 200)["affected"]


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    kind = argv[1]
    if kind == "http" and len(argv) >= 7:
        base, token, count, target, interval = argv[2], argv[3], int(argv[4]), argv[5], int(argv[6])
        timeout = int(argv[7]) if len(argv) > 7 else 10
        tags = int(os.environ.get("TAGS", "0") or 0)
        deps = min(int(os.environ.get("DEPENDENCIES", "0") or 0), count // 2)
        # CONNECTIONS (default 8) keep-alive connections in parallel, as
        # several provisioning clients would: one connection leaves the hub
        # idle while this script builds and parses each request.
        conns = max(1, int(os.environ.get("CONNECTIONS", "8") or 8))
        bulk = min(1000, max(0, int(os.environ.get("BULK", "0") or 0)))

        def body_of(i, parent=None):
            body = {"name": "n%d" % i, "type": "http", "target": target,
                    "interval": interval, "timeout": timeout, "retries": 0}
            if tags > 0:
                body["tags"] = ["tag%d" % (i % tags)]
            if parent is not None:
                body["depends_on"] = [parent]
            return body

        def run_all(bodies):
            out = [None] * len(bodies)
            failed = []

            def work(k):
                conn = connect(base)
                try:
                    if bulk > 0:
                        for start in range(k * bulk, len(bodies), conns * bulk):
                            out[start:start + bulk] = create_bulk(conn, token, bodies[start:start + bulk])
                    else:
                        for n in range(k, len(bodies), conns):
                            out[n] = create(conn, token, bodies[n])["id"]
                except SystemExit:
                    failed.append(k)
            threads = [threading.Thread(target=work, args=(k,)) for k in range(conns)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            if failed:
                sys.exit(1)
            return out

        t0 = time.monotonic()
        plain = count - deps
        ids = run_all([body_of(i) for i in range(1, plain + 1)])
        # Children last: each names one of the first monitors as its parent.
        ids += run_all([body_of(plain + j, ids[j - 1]) for j in range(1, deps + 1)])
        dt = time.monotonic() - t0
        print("created=%d seconds=%.2f per_s=%.0f" % (count, dt, count / dt if dt > 0 else 0))
        return 0
    if kind == "heartbeat" and len(argv) >= 7:
        base, token, count, period, grace = argv[2], argv[3], int(argv[4]), int(argv[5]), int(argv[6])
        conn = connect(base)
        for i in range(1, count + 1):
            m = create(conn, token, {"name": "hb%d" % i, "type": "heartbeat",
                                     "heartbeat": {"period": period, "grace": grace}})
            print(m["ping_url"])
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
