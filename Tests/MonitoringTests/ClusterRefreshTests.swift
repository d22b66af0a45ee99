import Core
@testable import Monitoring
import Store
import Testing
import TestSupport

/// Two hubs on one PostgreSQL database keep their monitors in step through
/// `monitor_changes` (`clusterTick`, called by hand here, with no wake-up
/// channel): what one creates, changes, pauses or deletes, the other has
/// after its next beat; a cursor that overflows reloads every monitor.
@Suite(.enabled(if: TestEngine.all.contains(.postgres))) struct ClusterRefreshTests {
    typealias Hub = ClusterTestHub

    @Test func createChangePauseDeleteReachTheOtherHubAtItsBeat() throws {
        let url = try TestEngine.postgres.url(in: "/tmp")
        let a = try Hub(url: url, node: "a"), b = try Hub(url: url, node: "b")
        var config = MonitorConfig(name: "api", type: .tcp, target: "127.0.0.1:9")
        let id = try a.service.create(config).id
        #expect(b.monitorConfig(id) == nil)
        b.beat()
        #expect(b.monitorConfig(id)?.name == "api")

        config.name = "api renamed"
        _ = try a.service.update(id: id, config)
        _ = try a.service.pause(id: id)
        b.beat()
        #expect(b.monitorConfig(id)?.name == "api renamed" && b.monitorConfig(id)?.paused == true)

        // Both hubs write; each reads the other's rows only.
        let other = try b.service.create(MonitorConfig(name: "db", type: .tcp, target: "127.0.0.1:9")).id
        _ = try a.service.resume(id: id)
        a.beat()
        b.beat()
        #expect(a.monitorConfig(other)?.name == "db" && b.monitorConfig(id)?.paused == false)

        try a.service.delete(id: id)
        b.beat()
        #expect(b.monitorConfig(id) == nil && b.monitorConfig(other) != nil)
        #expect(b.service.clusterState.withLock { $0.changes.awaited.isEmpty && !$0.changes.overflowed })
    }

    @Test func anOverflowedCursorReloadsEveryMonitor() throws {
        let url = try TestEngine.postgres.url(in: "/tmp")
        let a = try Hub(url: url, node: "a"), b = try Hub(url: url, node: "b")
        // A monitor no change row announces (written past the service), and
        // a row far beyond the cursor: more holes than are worth awaiting.
        let unannounced = try a.db.write { c in
            try Monitors.insert(c, MonitorRecord(name: "quiet", type: "tcp", target: "127.0.0.1:9", interval: 60, timeout: 10,
                                                 retries: 0), now: Time.now()).id
        }
        try a.db.write { c in
            try c.execute("INSERT INTO monitor_changes (seq, monitor_id, node, at_ms) VALUES (?, 0, 'x', ?)",
                          [.integer(Int64(CommitCursor.maxAwaited) * 4), .integer(Time.nowMillis())])
        }
        b.beat()
        #expect(b.service.clusterState.withLock { $0.changes.overflowed })
        #expect(b.monitorConfig(unannounced) == nil)
        b.beat()
        #expect(b.monitorConfig(unannounced)?.name == "quiet")
        #expect(b.service.clusterState.withLock { !$0.changes.overflowed })
    }
}

extension ClusterTestHub {
    func monitorConfig(_ id: Int64) -> MonitorConfig? { service.registry.get(id)?.config }
}
