import Core
import Net
import Store

/// `http` rows: the stored request is sent as is, concurrently on the
/// client engine. Redirects are not followed (a webhook that moved is a
/// configuration error the admin should see).
public struct HTTPTransport: DeliveryTransport {
    public let name = "http"
    let engine: ClientEngine
    let timeoutMillis: Int

    public init(engine: ClientEngine, timeoutMillis: Int = 15_000) {
        self.engine = engine
        self.timeoutMillis = timeoutMillis
    }

    public func deliver(_ rows: [OutboxRecord], report: @escaping @Sendable (Int64, AttemptVerdict) -> Void) {
        for row in rows {
            guard let req = OutboundRequest(storedText: row.payload) else {
                report(row.id, .permanent(error: "unreadable payload"))
                continue
            }
            var cr = ClientRequest(method: req.method, url: req.url, headers: req.headers.map { ($0.name, $0.value) }, body: req.body)
            cr.timeoutMillis = timeoutMillis
            cr.followRedirects = false
            cr.maxBodyBytes = 64 << 10
            let sender = req.service.flatMap(ChannelType.init(rawValue:))?.sender
            engine.execute(cr) { result in
                guard let response = result.response else {
                    report(row.id, .temporary(error: result.errorDescription ?? result.failure.map { "\($0)" } ?? "network error",
                                              retryAfter: nil))
                    return
                }
                let answer = ServiceAnswer(status: response.status, headers: response.headers.map { ($0.name, $0.value) },
                                           body: response.body)
                let verdict = sender?.verdict(for: answer) ?? answer.genericVerdict(reason: answer.reason)
                report(row.id, verdict.redacting(req))
            }
        }
    }
}

extension AttemptVerdict {
    /// The verdict with the request's credentials masked in its error.
    func redacting(_ request: OutboundRequest) -> AttemptVerdict {
        switch self {
        case .sent: .sent
        case .temporary(let e, let wait): .temporary(error: request.redactingCredentials(in: e), retryAfter: wait)
        case .permanent(let e): .permanent(error: request.redactingCredentials(in: e))
        }
    }
}
