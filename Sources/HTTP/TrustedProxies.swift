/// Which peers' `X-Forwarded-For`/`X-Forwarded-Proto` the server believes.
/// Anyone else could forge them, so from other peers they are ignored. The
/// address matching itself (CIDR ranges) belongs to the configuration; the
/// server only needs the question answered.
public struct TrustedProxies: Sendable {
    private let isTrusted: @Sendable (String) -> Bool

    /// Trusts nobody.
    public init() { isTrusted = { _ in false } }

    public init(isTrusted: @escaping @Sendable (String) -> Bool) { self.isTrusted = isTrusted }

    public func contains(_ address: String) -> Bool { isTrusted(address) }

    /// The client's address and scheme given the peer and the request's
    /// headers. X-Forwarded-For is read from the right: the first hop that is
    /// not itself a trusted proxy is the client.
    public func resolve(peer: String, headers: HTTPHeaders) -> (address: String, scheme: String) {
        guard isTrusted(peer) else { return (peer, "http") }
        var client = peer
        let hops = headers.values("X-Forwarded-For")
            .flatMap { $0.split(separator: ",") }
            .map { trimmed($0) }
            .filter { !$0.isEmpty }
        for hop in hops.reversed() {
            client = hop
            if !isTrusted(hop) { break }
        }
        // The last value of the last field is the nearest proxy's: several
        // fields are one comma-separated list (RFC 9110 §5.3), empty
        // elements are ignored (§5.6.1).
        var scheme = "http"
        let protos = headers.values("X-Forwarded-Proto")
            .flatMap { $0.split(separator: ",") }
            .map { trimmed($0) }
            .filter { !$0.isEmpty }
        if let last = protos.last?.lowercased(), last == "https" || last == "http" { scheme = last }
        return (client, scheme)
    }

    private func trimmed(_ s: Substring) -> String {
        var t = s
        while t.first == " " || t.first == "\t" { t = t.dropFirst() }
        while t.last == " " || t.last == "\t" { t = t.dropLast() }
        return String(t)
    }
}
