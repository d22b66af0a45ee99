import Core
import HTTP
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Timeouts, connection limits and graceful shutdown.
@Suite struct ServerLimitTests {
    @Test func headerTimeoutAnswers408AndCloses() throws {
        let server = try ServerTests.makeServer { $0.headerTimeoutMillis = 200 }
        defer { server.shutdown() }
        let c = try TestClient(port: server.port)
        c.send("GET /hello HTTP/1.1\r\nHost: x\r\n")
        let r = try #require(c.readResponse())
        #expect(r.status == 408)
        #expect(r.text.contains("\"code\":\"request_timeout\""))
        #expect(c.waitForClose())
    }

    @Test func idleKeepAliveConnectionIsClosed() throws {
        let server = try ServerTests.makeServer { $0.idleTimeoutMillis = 200 }
        defer { server.shutdown() }
        let c = try TestClient(port: server.port)
        c.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(c.readResponse()?.status == 200)
        let start = Time.monotonicNanos()
        #expect(c.waitForClose())
        let waited = Time.monotonicNanos() - start
        #expect(waited >= 100_000_000) // closed by the idle timer, not at once
    }

    @Test func connectionsOverTheLimitAreTurnedAway() throws {
        let server = try ServerTests.makeServer { $0.maxConnections = 2; $0.eventLoops = 1 }
        defer { server.shutdown() }
        let a = try TestClient(port: server.port)
        let b = try TestClient(port: server.port)
        a.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        b.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(a.readResponse()?.status == 200)
        #expect(b.readResponse()?.status == 200)
        let c = try TestClient(port: server.port)
        let r = try #require(c.readResponse())
        #expect(r.status == 503)
        #expect(c.waitForClose())
        // A freed slot is usable again.
        a.send("GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(a.readResponse()?.status == 200)
        #expect(a.waitForClose())
        shutdown(a.fd, Int32(SHUT_RDWR)) // ends the server's lingering close at once
        usleep(50_000)
        let d = try TestClient(port: server.port)
        d.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(d.readResponse()?.status == 200)
    }

    @Test func shutdownFinishesInFlightRequestsThenRefusesConnections() throws {
        let server = try ServerTests.makeServer()
        let port = server.port
        let c = try TestClient(port: port)
        let idle = try TestClient(port: port)
        c.send("GET /slow?ms=300&n=last HTTP/1.1\r\nHost: x\r\n\r\n")
        usleep(50_000)
        let done = Atomic<Bool>(false)
        let stopper = startThread(name: "stopper") {
            server.shutdown()
            done.store(true, ordering: .sequentiallyConsistent)
        }
        let r = try #require(c.readResponse())
        #expect(r.status == 200)
        #expect(r.text == "slow last")
        #expect(r.header("Connection") == "close")
        #expect(idle.waitForClose())
        stopper.join()
        let finished = done.load(ordering: .sequentiallyConsistent)
        #expect(finished)
        #expect(throws: SystemError.self) { _ = try TestClient(port: port) }
    }

    @Test func shutdownIsBoundedByItsTimeout() throws {
        let server = try ServerTests.makeServer { $0.shutdownTimeoutMillis = 200 }
        let c = try TestClient(port: server.port)
        c.send("GET /slow?ms=1500 HTTP/1.1\r\nHost: x\r\n\r\n")
        usleep(50_000)
        let start = Time.monotonicNanos()
        server.shutdown()
        // The loops give up after 200 ms; the pool still lets the handler end.
        #expect(Time.monotonicNanos() - start < 3_000_000_000)
        _ = c
    }
}
