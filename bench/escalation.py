#!/usr/bin/env python3
"""Escalation latency driver for bench/escalation.sh (standard library only).

  escalation.py URL TOKEN COUNT

Against a running hub at URL (write TOKEN): starts a webhook receiver on a
free 127.0.0.1 port (threads; notes each request's arrival time), creates
two webhook channels on it and a two-step policy (step 1: /step1, then 1
minute, step 2: /step2; no repeat), COUNT heartbeat monitors with that
policy, sends each a success ping (up) and then a failure ping (down: an
incident opens and step 1 goes with its alert), reads every open
incident's escalation.next_at, and waits for step 2 of each at the
receiver. Prints one line:

  incidents=N opened_within_s=S step1=N step2=N duplicates=N
  step2_delay_ms_max=… p99=… p50=… min=… queued_late_s_max=…

step2_delay_ms = arrival at the receiver - next_at (due times are whole
seconds, so this is from the due second's start). queued_late_s is the
step's timeline entry (whole seconds) - next_at. Exit 1 when a step is
missing or arrives twice.
"""
import calendar
import http.client
import http.server
import json
import sys
import threading
import time
import urllib.parse


class Receiver(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024

    def __init__(self):
        self.lock = threading.Lock()
        self.seen = []  # (arrival ms, path, incident_id, event, delivery id)
        super().__init__(("127.0.0.1", 0), Handler)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        at = time.time() * 1000
        n = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(n) or b"{}")
        with self.server.lock:
            self.server.seen.append((at, self.path, body.get("incident_id"), body.get("event"), body.get("id")))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


class API:
    def __init__(self, base, token):
        self.url = urllib.parse.urlsplit(base)
        self.token = token
        self.connect()

    def connect(self):
        self.conn = http.client.HTTPConnection(self.url.hostname, self.url.port, timeout=60)

    def send(self, method, path, data, headers):
        """One exchange; a keep-alive connection the hub closed while idle is opened again."""
        for attempt in (0, 1):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                return resp, resp.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                if attempt:
                    raise
                self.conn.close()
                self.connect()

    def call(self, method, path, body=None, want=200):
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Authorization": "Bearer " + self.token, "Connection": "keep-alive"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        resp, text = self.send(method, path, data, headers)
        if resp.status != want:
            sys.stderr.write("%s %s -> %d %s\n" % (method, path, resp.status, text[:300].decode(errors="replace")))
            sys.exit(1)
        return json.loads(text) if text else None

    def get(self, path):
        """A GET with no token (ping URLs)."""
        resp, _ = self.send("GET", path, None, {"Connection": "keep-alive"})
        if resp.status != 200:
            sys.stderr.write("GET %s -> %d\n" % (path, resp.status))
            sys.exit(1)


def rfc3339(s):
    return calendar.timegm(time.strptime(s, "%Y-%m-%dT%H:%M:%SZ"))


def pct(values, q):
    if not values:
        return 0
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    base, token, count = argv[1], argv[2], int(argv[3])
    recv = Receiver()
    threading.Thread(target=recv.serve_forever, daemon=True).start()
    hook = "http://127.0.0.1:%d" % recv.server_address[1]
    api = API(base, token)
    ids = []
    for name in ("step1", "step2"):
        ch = api.call("POST", "/api/channels", {"name": name, "type": "webhook", "events": [],
                                                "config": {"url": hook + "/" + name}}, want=201)
        ids.append(ch["id"])
    policy = api.call("POST", "/api/escalation-policies", {
        "name": "bench", "repeat": 0,
        "steps": [{"channel_ids": [ids[0]], "delay_minutes": 1}, {"channel_ids": [ids[1]], "delay_minutes": 1}],
    }, want=201)["id"]
    paths = []
    for i in range(count):
        m = api.call("POST", "/api/monitors", {"name": "esc%d" % i, "type": "heartbeat", "escalation_policy_id": policy,
                                               "heartbeat": {"period": 3600, "grace": 3600}}, want=201)
        paths.append(urllib.parse.urlsplit(m["ping_url"]).path)
    for p in paths:
        api.get(p)  # up: a first result after pending alerts nothing
    t0 = time.time()
    for p in paths:
        api.get(p + "/fail")
    opened_within = time.time() - t0

    due = {}
    cursor = None
    while True:
        q = "/api/incidents?status=open&limit=500" + ("&cursor=" + cursor if cursor else "")
        page = api.call("GET", q)
        for inc in page["items"]:
            esc = inc.get("escalation")
            if esc and esc.get("next_at"):
                due[inc["id"]] = rfc3339(esc["next_at"])
        cursor = page.get("next_cursor")
        if not cursor:
            break
    if len(due) != count:
        sys.stderr.write("expected %d escalating incidents, found %d\n" % (count, len(due)))
        return 1

    deadline = max(due.values()) + 120
    while time.time() < deadline:
        with recv.lock:
            got = {s[2] for s in recv.seen if s[1] == "/step2"}
        if len(got) >= count:
            break
        time.sleep(0.2)
    time.sleep(3)  # anything sent twice would arrive by now
    with recv.lock:
        seen = list(recv.seen)
    step1 = {s[2] for s in seen if s[1] == "/step1"}
    step2 = {}
    duplicates = 0
    for s in seen:
        if s[1] == "/step2" and s[2] in due:
            if s[2] in step2:
                duplicates += 1
            else:
                step2[s[2]] = s[0]
    delays = [step2[i] - due[i] * 1000 for i in step2]
    # When each step was queued: its timeline entry (whole seconds), a sample of 50.
    queued = []
    for i in list(step2)[:50]:
        tl = api.call("GET", "/api/incidents/%d" % i)["timeline"]
        at = [rfc3339(e["at"]) for e in tl if e["event"] == "escalated" and e["detail"].startswith("step 2")]
        if at:
            queued.append(at[0] - due[i])
    print("incidents=%d opened_within_s=%.1f step1=%d step2=%d duplicates=%d step2_delay_ms_max=%.0f p99=%.0f p50=%.0f min=%.0f "
          "queued_late_s_max=%d" % (len(due), opened_within, len(step1), len(step2), duplicates, max(delays or [0]),
                                    pct(delays, 0.99), pct(delays, 0.5), min(delays or [0]), max(queued or [0])))
    return 0 if len(step2) == count and duplicates == 0 and len(step1) == count else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
