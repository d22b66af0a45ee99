import Core
@testable import Monitoring
import Store

/// One hub of a cluster test: its own connections to a shared PostgreSQL
/// schema and a started `MonitoringService` without a wake-up channel, so
/// the test drives its cluster beats by hand (`beat`).
final class ClusterTestHub {
    let db: Database
    let service: MonitoringService

    init(url: String, node: String) throws {
        db = try Database(url: DatabaseURL(url), readers: 2)
        service = MonitoringService(database: db, settings: MonitoringSettings(),
                                    cluster: HubCluster(database: db, nodeID: node, version: "test"), wake: .inert)
        try service.start()
    }

    /// The cluster beat's work, without the beat thread.
    func beat() { service.clusterTick(changed: false) }

    deinit {
        service.stop()
        db.close()
    }
}
