import CShims
import Core
import HTTP
import Synchronization

/// A loopback HTTP target whose answer depends on who asks: `GET /whoami`
/// answers the client's address as the body, with 200 for the addresses in
/// `healthyFor` and 503 for everyone else. Listens on 0.0.0.0 so clients
/// bound to any 127.x source address reach it (all of 127/8 is loopback on
/// Linux): two agents on one machine then see it differently.
public final class ClientAddressTarget: Sendable {
    private let server: HTTPServer
    private let stopped = Atomic<Bool>(false)
    private let seen = ClientLog()

    public var port: UInt16 { server.port }
    /// `http://127.0.0.1:PORT/whoami`
    public var url: String { "http://127.0.0.1:\(port)/whoami" }
    /// Client addresses of every request so far.
    public var clients: [String] { seen.list.withLock { $0 } }

    private let healthy = HealthySet()

    /// Who gets 200 from now on.
    public func setHealthy(_ addresses: Set<String>) { healthy.set.withLock { $0 = addresses } }

    public init(healthyFor: Set<String>) throws {
        pt_ignore_sigpipe()
        var config = ServerConfiguration()
        config.host = "0.0.0.0"
        config.port = 0
        config.eventLoops = 1
        config.workers = 2
        config.accessLog = false
        let seen = self.seen
        let healthy = self.healthy
        healthy.set.withLock { $0 = healthyFor }
        let router = Router { r in
            r.add("GET", "/whoami", .pool) { req in
                seen.list.withLock { $0.append(req.clientAddress) }
                return .text(healthy.set.withLock { $0.contains(req.clientAddress) } ? 200 : 503, req.clientAddress)
            }
        }
        server = try HTTPServer(configuration: config, router: router)
    }

    deinit { stop() }

    public func stop() {
        if stopped.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged {
            server.shutdown()
        }
    }
}

private final class ClientLog: Sendable {
    let list = Mutex<[String]>([])
}

private final class HealthySet: Sendable {
    let set = Mutex<Set<String>>([])
}
