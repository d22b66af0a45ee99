import Testing
import Core
import Net
import Notify
import Store
import Synchronization
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

@Suite struct DeliveryDecisionTests {
    @Test func table() {
        let b = Backoff()
        func d(_ status: Int?, _ ra: String? = nil, attempts: Int64 = 1, now: Int64 = 1_000) -> DeliveryDecision {
            DeliveryDecision.decide(status: status, retryAfter: ra, failure: status == nil ? "connection refused" : nil,
                                    createdAt: 1_000, attempts: attempts, now: now, jitter: 0, backoff: b)
        }
        #expect(d(200) == .sent)
        #expect(d(204) == .sent)
        #expect(d(404) == .failed(error: "HTTP 404"))
        #expect(d(401) == .failed(error: "HTTP 401"))
        #expect(d(503) == .retry(at: 1_005, error: "HTTP 503"))
        #expect(d(429, "60") == .retry(at: 1_060, error: "HTTP 429"))
        #expect(d(nil) == .retry(at: 1_005, error: "connection refused"))
        #expect(d(503, attempts: 60, now: 1_000 + 24 * 3600 - 10) == .failed(error: "HTTP 503 (gave up after 24 h)"))
    }
}

/// The worker against a real loopback receiver, with an injected clock.
@Suite(.serialized) struct DeliveryWorkerTests {
    final class Fixture {
        let dir: String
        let db: Database
        let receiver: RecordingHTTPReceiver
        let engine = ClientEngine(loops: 1, maxConcurrent: 16)
        let clock = TestClock()
        let worker: DeliveryWorker
        let channel: Channel

        init(_ store: TestEngine) throws {
            var template = Array("/tmp/pingtxt-delivery-XXXXXX".utf8CString)
            dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
            db = try store.open(in: dir, readers: 4)
            receiver = try RecordingHTTPReceiver()
            let clock = self.clock
            worker = DeliveryWorker(database: db, transports: [HTTPTransport(engine: engine, timeoutMillis: 3_000)], claimSeconds: 60, clock: { clock.now })
            let url = receiver.baseURL + "/hook"
            let record = try db.write { c in
                try Channels.insert(c, ChannelRecord(name: "hook", type: "webhook", enabled: true, events: [.monitorDown],
                                                     monitorIDs: [], reminderMinutes: 0,
                                                     config: JSONObject([("url", .string(url)), ("secret", "k")])), now: 10_000)
            }
            channel = try Channel(record: record)
        }

        deinit {
            engine.shutdown()
            receiver.stop()
            db.close()
            for f in ["hub.db", "hub.db-wal", "hub.db-shm"] { unlink("\(dir)/\(f)") }
            rmdir(dir)
        }

        func enqueue() throws -> Int64 {
            let t = clock.now
            return try db.write { c in
                try Notifier().queue(c, channel: channel, notification: .test(channelName: "hook", at: t, outboxID: 0),
                                     eventID: nil, now: t)[0]
            }
        }

        func row(_ id: Int64) throws -> OutboxRecord { try db.read { try Outbox.find($0, id: id)! } }
        func advance(_ s: Int64) { clock.t.add(s, ordering: .relaxed) }
    }

    @Test(arguments: TestEngine.all) func sendsRetriesHonouringRetryAfterThenSucceedsOnce(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.enqueue()
        f.receiver.setStatus(503, retryAfter: "120")
        #expect(try f.worker.deliverDue(waitForResults: true) == 1)
        var r = try f.row(id)
        #expect(r.status == "pending" && r.attempts == 1 && r.lastError == "HTTP 503: recorded" && r.nextAttemptAt == 10_120)
        #expect(try f.worker.deliverDue(waitForResults: true) == 0)           // not due yet
        f.advance(120)
        f.receiver.setStatus(200)
        #expect(try f.worker.deliverDue(waitForResults: true) == 1)
        r = try f.row(id)
        #expect(r.status == "sent" && r.attempts == 2 && r.sentAt == 10_120)
        #expect(try f.worker.deliverDue(waitForResults: true) == 0)
        let got = f.receiver.received
        #expect(got.count == 2)
        // The retry carried exactly the same bytes and the same id.
        #expect(got[0].body == got[1].body && got[0].header("X-Pingtxt-Delivery") == "outbox-\(id)")
        #expect(got[1].header("X-Pingtxt-Signature")?.hasPrefix("sha256=") == true)
        #expect(got[1].bodyText.contains(#""event":"test""#))
        let d = try f.db.read { try Channels.delivery($0, channelID: f.channel.id) }
        #expect(d.sent == 1 && d.pending == 0 && d.lastSentAt == 10_120)
    }

    @Test(arguments: TestEngine.all) func permanentErrorFails(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.enqueue()
        f.receiver.setStatus(404)
        #expect(try f.worker.deliverDue(waitForResults: true) == 1)
        #expect(try f.row(id).status == "failed" && f.row(id).lastError == "HTTP 404: recorded")
    }

    @Test(arguments: TestEngine.all) func networkErrorRetriesAndExpiredClaimIsResent(engine: TestEngine) throws {
        let f = try Fixture(engine)
        let id = try f.enqueue()
        // A crash after claiming: the row stays in `sending` until the claim expires.
        _ = try f.db.write { c in try Outbox.claim(c, now: 10_000, claimUntil: 10_060, limit: 10) }
        #expect(try f.worker.deliverDue(waitForResults: true) == 0)
        f.advance(60)
        #expect(try f.worker.deliverDue(waitForResults: true) == 1)
        #expect(try f.row(id).status == "sent")
        #expect(f.receiver.received.count == 1)
        // A receiver that is gone: retried, not failed.
        let second = try f.enqueue()
        f.receiver.stop()
        #expect(try f.worker.deliverDue(waitForResults: true) == 1)
        let r = try f.row(second)
        #expect(r.status == "pending" && r.lastError != nil)
    }

    @Test(arguments: TestEngine.all) func threadDeliversWhenWoken(engine: TestEngine) throws {
        let f = try Fixture(engine)
        f.worker.start()
        defer { f.worker.stop() }
        let id = try f.enqueue()
        f.worker.wake()
        var tries = 0
        while try f.row(id).status != "sent", tries < 100 { usleep(20_000); tries += 1 }
        #expect(try f.row(id).status == "sent")
    }
}

final class TestClock: Sendable {
    let t = Atomic<Int64>(10_000)
    var now: Int64 { t.load(ordering: .relaxed) }
}
