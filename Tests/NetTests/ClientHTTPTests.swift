import Core
import TestSupport
import HTTP
@testable import Net
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The engine against real loopback servers: our HTTPServer, and raw socket
/// servers for framings and misbehaviour it never produces.
@Suite(.serialized) struct ClientHTTPTests {
    static func body(_ r: ClientResult) -> String { String(decoding: r.response?.body ?? [], as: UTF8.self) }

    @Test func getWithBodyAndTimings() throws {
        let server = try makeHTTPServer()
        defer { server.shutdown() }
        let engine = ClientEngine()
        defer { engine.shutdown() }
        let r = engine.execute(ClientRequest(url: "http://127.0.0.1:\(server.port)/ok"))
        #expect(r.failure == nil && r.errorDescription == nil)
        #expect(r.response?.status == 200)
        #expect(Self.body(r) == "hello")
        #expect(r.response?.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(r.response?.finalURL == "http://127.0.0.1:\(server.port)/ok")
        #expect(r.tls == nil)
        let t = r.timings
        #expect(t.dnsMs == 0)  // IP literal
        #expect(t.connectMs > 0 && t.firstByteMs > 0 && t.totalMs > 0)
        #expect(t.totalMs >= t.connectMs + t.firstByteMs)

        // A name goes through the resolver; the second lookup is a cache hit.
        let named = engine.execute(ClientRequest(url: "http://localhost:\(server.port)/ok"))
        #expect(named.response?.status == 200, "\(named.errorDescription ?? "")")
        #expect(named.timings.dnsMs > 0)
        #expect(named.timings.totalMs >= named.timings.dnsMs + named.timings.connectMs)
    }

    @Test func non2xxIsAResponseNotAnError() throws {
        let server = try makeHTTPServer()
        defer { server.shutdown() }
        let engine = ClientEngine()
        defer { engine.shutdown() }
        let r = engine.execute(ClientRequest(url: "http://127.0.0.1:\(server.port)/fail"))
        #expect(r.failure == nil && r.errorDescription == nil)
        #expect(r.response?.status == 503 && Self.body(r) == "down")
    }

    @Test func postEchoesBodyAndSendsDefaultHeaders() throws {
        let server = try makeHTTPServer()
        defer { server.shutdown() }
        let engine = ClientEngine()
        defer { engine.shutdown() }
        var req = ClientRequest(method: "POST", url: "http://127.0.0.1:\(server.port)/echo", body: Array("ping body".utf8))
        req.headers = [("Content-Type", "text/plain")]
        let r = engine.execute(req)
        #expect(r.response?.status == 200 && Self.body(r) == "ping body")
        #expect(r.response?.headers["X-Method"] == "POST")

        let h = engine.execute(ClientRequest(url: "http://127.0.0.1:\(server.port)/headers"))
        let text = Self.body(h)
        #expect(text.contains("Host: 127.0.0.1:\(server.port)"))
        #expect(text.contains("User-Agent: pingtxt/0.1"))
        #expect(text.contains("Accept: */*"))
        #expect(text.contains("Connection: close"))
    }

    @Test func redirects() throws {
        let server = try makeHTTPServer()
        defer { server.shutdown() }
        let engine = ClientEngine()
        defer { engine.shutdown() }
        let base = "http://127.0.0.1:\(server.port)"

        let rel = engine.execute(ClientRequest(url: base + "/r/rel"))
        #expect(Self.body(rel) == "final from=rel")
        #expect(rel.response?.redirects == 1 && rel.response?.finalURL == base + "/r/final?from=rel")

        let abs = engine.execute(ClientRequest(url: base + "/r/abs"))
        #expect(abs.response?.status == 200 && Self.body(abs) == "hello" && abs.response?.redirects == 1)

        let chain = engine.execute(ClientRequest(url: base + "/r/chain/6"))
        #expect(Self.body(chain) == "done" && chain.response?.redirects == 5, "\(chain)")

        var limited = ClientRequest(url: base + "/r/chain/6")
        limited.maxRedirects = 4
        #expect(engine.execute(limited).failure == .tooManyRedirects)

        let loop = engine.execute(ClientRequest(url: base + "/r/loop"))
        #expect(loop.failure == .tooManyRedirects && loop.response == nil)
        #expect(loop.errorDescription == "too many redirects")

        var noFollow = ClientRequest(url: base + "/r/rel")
        noFollow.followRedirects = false
        let nf = engine.execute(noFollow)
        #expect(nf.response?.status == 302 && nf.response?.headers["Location"] == "final?from=rel")

        // 303 after POST: GET without the body (and without its Content-Type).
        var post = ClientRequest(method: "POST", url: base + "/r/see-other", body: Array("payload".utf8))
        post.headers = [("Content-Type", "text/plain")]
        let seeOther = engine.execute(post)
        #expect(Self.body(seeOther) == "GET 0 -", "\(seeOther.errorDescription ?? "")")

        // 307 keeps method and body.
        let put = engine.execute(ClientRequest(method: "PUT", url: base + "/r/temp", body: Array("same".utf8)))
        #expect(Self.body(put) == "PUT same")
    }

    @Test func bodyCapTruncatesButReadsOn() throws {
        let server = try makeHTTPServer()
        defer { server.shutdown() }
        let engine = ClientEngine()
        defer { engine.shutdown() }
        var req = ClientRequest(url: "http://127.0.0.1:\(server.port)/big")
        req.maxBodyBytes = 1000
        let r = engine.execute(req)
        #expect(r.failure == nil && r.response?.status == 200)
        #expect(r.response?.body.count == 1000 && r.response?.bodyTruncated == true)

        req.maxReadBytes = 64 * 1024  // hard cap: stop reading, keep what we have
        let capped = engine.execute(req)
        #expect(capped.failure == nil && capped.response?.body.count == 1000 && capped.response?.bodyTruncated == true)

        let full = engine.execute(ClientRequest(url: "http://127.0.0.1:\(server.port)/big"))
        #expect(full.response?.body.count == 1 << 20 && full.response?.bodyTruncated == true)
    }

    @Test func chunkedAndCloseDelimitedFromARawServer() throws {
        let chunked = try #require(RawServer { fd in
            readRequestHead(fd)
            writeAll(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Kind: chunked\r\n\r\n")
            writeAll(fd, "4;ext=1\r\nabcd\r\n")
            usleep(20_000)
            writeAll(fd, "6\r\nefghij\r\n0\r\nX-Trailer: yes\r\n\r\n")
            usleep(2_000_000)  // keep the connection: completion must come from framing, not EOF
        })
        defer { chunked.stop() }
        let closing = try #require(RawServer { fd in
            readRequestHead(fd)
            writeAll(fd, "HTTP/1.0 200 OK\r\nX-Kind: close\r\n\r\nfirst ")
            usleep(20_000)
            writeAll(fd, "second")
        })
        defer { closing.stop() }
        let engine = ClientEngine()
        defer { engine.shutdown() }
        let a = engine.execute(ClientRequest(url: "http://127.0.0.1:\(chunked.port)/"))
        #expect(Self.body(a) == "abcdefghij" && a.response?.headers["X-Kind"] == "chunked")
        #expect(a.timings.totalMs < 1500)
        let b = engine.execute(ClientRequest(url: "http://127.0.0.1:\(closing.port)/"))
        #expect(Self.body(b) == "first second" && b.response?.headers["X-Kind"] == "close")
    }

    @Test func badFramingIsAProtocolError() throws {
        let server = try #require(RawServer { fd in
            readRequestHead(fd)
            writeAll(fd, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
        })
        defer { server.stop() }
        let garbage = try #require(RawServer { fd in
            readRequestHead(fd)
            writeAll(fd, "SSH-2.0-OpenSSH_9.2\r\n")
        })
        defer { garbage.stop() }
        let silent = try #require(RawServer { fd in readRequestHead(fd) })
        defer { silent.stop() }
        let engine = ClientEngine()
        defer { engine.shutdown() }
        let r = engine.execute(ClientRequest(url: "http://127.0.0.1:\(server.port)/"))
        #expect(r.failure == .protocolError("both Content-Length and Transfer-Encoding"))
        let g = engine.execute(ClientRequest(url: "http://127.0.0.1:\(garbage.port)/"))
        #expect(g.failure == .protocolError("malformed status line"))
        let s = engine.execute(ClientRequest(url: "http://127.0.0.1:\(silent.port)/"))
        #expect(s.failure == .protocolError("connection closed without a response"))
    }

    @Test func timeoutWhenTheServerNeverAnswers() throws {
        let server = try #require(RawServer { fd in
            var buf = [UInt8](repeating: 0, count: 1024)
            while read(fd, &buf, buf.count) > 0 {}  // until the client gives up
        })
        defer { server.stop() }
        let engine = ClientEngine()
        defer { engine.shutdown() }
        var req = ClientRequest(url: "http://127.0.0.1:\(server.port)/")
        req.timeoutMillis = 300
        let start = Time.monotonicNanos()
        let r = engine.execute(req)
        let ms = Double(Time.monotonicNanos() - start) / 1e6
        #expect(r.failure == .timeout(phase: "first_byte"))
        #expect(r.errorDescription == "timed out after 300 ms (first_byte)")
        #expect(ms >= 295 && ms < 1000, "took \(ms) ms")
        #expect(r.timings.connectMs > 0)
    }

    @Test func connectionRefusedAndDNSFailureAndBadURL() throws {
        let engine = ClientEngine()
        defer { engine.shutdown() }
        let refused = engine.execute(ClientRequest(url: "http://127.0.0.1:\(closedPort())/"))
        #expect(refused.failure == .connect("connection refused"))
        #expect(refused.errorDescription == "connection refused")

        var dns = ClientRequest(url: "http://nonexistent.invalid/")
        dns.timeoutMillis = 5000
        let d = engine.execute(dns)
        guard case .dns = d.failure else { Issue.record("expected a DNS failure, got \(String(describing: d.failure))"); return }
        #expect(d.errorDescription?.hasPrefix("DNS: ") == true)

        let bad = engine.execute(ClientRequest(url: "gopher://x/"))
        #expect(bad.failure == .invalidURL("scheme must be http or https"))
    }

    @Test func ipv6Literal() throws {
        // Skipped quietly when the machine has no IPv6 loopback.
        guard let probe = RawServer(ipv6: true, handler: { _ in }) else { return }
        probe.stop()
        let server = try makeHTTPServer(host: "::1")
        defer { server.shutdown() }
        let engine = ClientEngine()
        defer { engine.shutdown() }
        let r = engine.execute(ClientRequest(url: "http://[::1]:\(server.port)/ok"))
        #expect(r.response?.status == 200 && Self.body(r) == "hello", "\(r.errorDescription ?? "")")
        #expect(r.timings.dnsMs == 0)
        let tcp = engine.connectTCP(host: "::1", port: Int(server.port), timeoutMillis: 1000)
        #expect(tcp.failure == nil && tcp.address == "::1")
    }

    @Test func tcpProbe() throws {
        let server = try makeHTTPServer()
        defer { server.shutdown() }
        let engine = ClientEngine()
        defer { engine.shutdown() }
        let ok = engine.connectTCP(host: "localhost", port: Int(server.port), timeoutMillis: 2000)
        #expect(ok.failure == nil && ok.errorDescription == nil)
        #expect(ok.address == "127.0.0.1" || ok.address == "::1")
        #expect(ok.timings.connectMs > 0 && ok.timings.totalMs >= ok.timings.connectMs)
        let refused = engine.connectTCP(host: "127.0.0.1", port: closedPort(), timeoutMillis: 2000)
        #expect(refused.failure == .connect("connection refused"))
        let bad = engine.connectTCP(host: "127.0.0.1", port: 0, timeoutMillis: 2000)
        #expect(bad.failure == .invalidURL("bad host or port"))
    }

    @Test func queuedBeyondMaxConcurrentAndShutdownCancels() throws {
        let server = try #require(RawServer { fd in
            readRequestHead(fd)
            usleep(50_000)
            writeAll(fd, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx")
        })
        defer { server.stop() }
        let engine = ClientEngine(loops: 1, maxConcurrent: 2)
        let done = Atomic<Int>(0)
        let sem = Semaphore()
        for _ in 0..<6 {
            engine.execute(ClientRequest(url: "http://127.0.0.1:\(server.port)/")) { r in
                if r.response?.status == 200 { done.wrappingAdd(1, ordering: .relaxed) }
                sem.post()
            }
        }
        let start = Time.monotonicNanos()
        for _ in 0..<6 { sem.wait() }
        let ms = Double(Time.monotonicNanos() - start) / 1e6
        #expect(done.load(ordering: .relaxed) == 6)
        #expect(ms >= 140, "6 requests, 2 at a time, 50 ms each: \(ms) ms")  // three waves

        // Shutdown cancels what is in flight and refuses what comes later.
        let cancelled = Atomic<Int>(0)
        let never = try #require(RawServer { fd in
            var buf = [UInt8](repeating: 0, count: 1024)
            while read(fd, &buf, buf.count) > 0 {}
        })
        defer { never.stop() }
        for _ in 0..<3 {
            engine.execute(ClientRequest(url: "http://127.0.0.1:\(never.port)/")) { r in
                if r.failure == .cancelled { cancelled.wrappingAdd(1, ordering: .relaxed) }
                sem.post()
            }
        }
        usleep(50_000)
        engine.shutdown()
        for _ in 0..<3 { sem.wait() }
        #expect(cancelled.load(ordering: .relaxed) == 3)
        #expect(engine.execute(ClientRequest(url: "http://127.0.0.1:1/")).failure == .cancelled)
    }

    @Test func deadlineCountsTimeSpentQueued() throws {
        let never = try #require(RawServer { fd in
            var buf = [UInt8](repeating: 0, count: 1024)
            while read(fd, &buf, buf.count) > 0 {}
        })
        defer { never.stop() }
        let engine = ClientEngine(loops: 1, maxConcurrent: 1)
        defer { engine.shutdown() }
        let phases = Mutex<[String]>([])
        let sem = Semaphore()
        for _ in 0..<2 {
            var req = ClientRequest(url: "http://127.0.0.1:\(never.port)/")
            req.timeoutMillis = 200
            engine.execute(req) { r in
                if case .timeout(let phase) = r.failure { phases.withLock { $0.append(phase) } }
                sem.post()
            }
        }
        sem.wait()
        sem.wait()
        #expect(phases.withLock { $0.sorted() } == ["first_byte", "queue"])
    }

    @Test func twoThousandInFlight() throws {
        let server = try makeHTTPServer()
        defer { server.shutdown() }
        let engine = ClientEngine(loops: 2, maxConcurrent: 4096)
        defer { engine.shutdown() }
        let total = 2000
        let ok = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        let sem = Semaphore()
        let start = Time.monotonicNanos()
        for _ in 0..<total {
            var req = ClientRequest(url: "http://127.0.0.1:\(server.port)/ok")
            req.timeoutMillis = 20_000
            engine.execute(req) { r in
                if r.response?.status == 200 { ok.wrappingAdd(1, ordering: .relaxed) } else {
                    failures.withLock { $0.append(r.errorDescription ?? "?") }
                }
                if finished.wrappingAdd(1, ordering: .relaxed).newValue == total { sem.post() }
            }
        }
        sem.wait()
        let seconds = Double(Time.monotonicNanos() - start) / 1e9
        #expect(ok.load(ordering: .relaxed) == total, "\(failures.withLock { Array($0.prefix(5)) })")
        print("NetTests: \(total) concurrent GETs in \(Int(seconds * 1000)) ms ≈ \(Int(Double(total) / seconds)) req/s (debug build)")
    }
}
