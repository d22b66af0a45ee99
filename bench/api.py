#!/usr/bin/env python3
"""Minimal pingtxt API client for the bench scripts: one persistent HTTP/1.1
connection (keep-alive), standard library only.

  api.py http URL TOKEN COUNT TARGET INTERVAL [TIMEOUT]
      creates COUNT http monitors (n1..nCOUNT) checking TARGET; prints
      "created=N seconds=S per_s=R" on stdout. With the environment
      TAGS=T monitor i gets the tag "tag(i mod T)"; with DEPENDENCIES=D the
      last D monitors each depend on one of the first ones (monitor
      COUNT-D+j on monitor j), so D children hang off D parents.
  api.py heartbeat URL TOKEN COUNT PERIOD GRACE
      creates COUNT heartbeat monitors; prints their ping_url, one a line.
URL is the hub's base URL (http://127.0.0.1:PORT). Exit 1 on any non-201.
"""
import http.client
import json
import os
import sys
import time
import urllib.parse


def connect(base):
    u = urllib.parse.urlsplit(base)
    return http.client.HTTPConnection(u.hostname, u.port or 80, timeout=60)


def create(conn, token, body):
    data = json.dumps(body).encode()
    conn.request("POST", "/api/monitors", body=data, headers={
        "Authorization": "Bearer " + token,
        "Content-Type": "application/json",
        "Connection": "keep-alive",
    })
    resp = conn.getresponse()
    text = resp.read()
    if resp.status != 201:
        sys.stderr.write("POST /api/monitors -> %d %s\n" % (resp.status, text[:300].decode(errors="replace")))
        sys.exit(1)
    return json.loads(text)


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
        conn = connect(base)
        t0 = time.monotonic()
        ids = []
        for i in range(1, count + 1):
            body = {"name": "n%d" % i, "type": "http", "target": target,
                    "interval": interval, "timeout": timeout, "retries": 0}
            if tags > 0:
                body["tags"] = ["tag%d" % (i % tags)]
            j = i - (count - deps)
            if deps > 0 and j >= 1:
                body["depends_on"] = [ids[j - 1]]
            ids.append(create(conn, token, body)["id"])
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
