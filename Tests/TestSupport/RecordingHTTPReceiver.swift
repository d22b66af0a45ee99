import CShims
import Core
import HTTP
import Synchronization

/// A loopback HTTP server that records every request it is sent (webhook
/// receivers, fake relays). Its answer status (and `Retry-After`) can be
/// switched at run time; requests are recorded whatever it answers.
public final class RecordingHTTPReceiver: Sendable {
    public struct Received: Sendable {
        public var method: String
        public var path: String
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]
        /// What the receiver answered.
        public var status: Int
        public var bodyText: String { String(decoding: body, as: UTF8.self) }
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    private let server: HTTPServer
    private let state: ReceiverState
    private let stopped = Atomic<Bool>(false)

    public var port: UInt16 { server.port }
    /// `http://127.0.0.1:PORT`
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public init() throws {
        pt_ignore_sigpipe()
        let config = ServerConfiguration.loopbackPeer()
        let state = ReceiverState()
        self.state = state
        let router = Router { r in
            for method in ["GET", "POST", "PUT"] {
                r.add(method, "/{path}", .pool) { req in state.record(req) }
            }
        }
        server = try HTTPServer(configuration: config, router: router)
    }

    deinit { stop() }

    /// The status answered from now on, with an optional `Retry-After`.
    public func setStatus(_ code: Int, retryAfter: String? = nil) {
        state.answer.withLock { $0 = (code, retryAfter) }
    }

    /// Every request so far, oldest first.
    public var received: [Received] { state.log.withLock { $0 } }

    public func stop() {
        if stopped.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged {
            server.shutdown()
        }
    }
}

private final class ReceiverState: Sendable {
    let answer = Mutex<(Int, String?)>((200, nil))
    let log = Mutex<[RecordingHTTPReceiver.Received]>([])

    func record(_ req: HTTPRequest) -> HTTPResponse {
        let (code, retryAfter) = answer.withLock { $0 }
        log.withLock {
            $0.append(.init(method: req.method, path: req.path, headers: req.headers.map { ($0.name, $0.value) }, body: req.body,
                            status: code))
        }
        var h = HTTPHeaders()
        h.add("Content-Type", "text/plain")
        if let retryAfter { h.add("Retry-After", retryAfter) }
        return HTTPResponse(status: code, headers: h, body: Array("recorded".utf8))
    }
}
