/// The kinds of monitor (SPEC §5).
public enum MonitorType: String, Sendable, CaseIterable {
    case http, tcp, dns, tls, heartbeat, ping
}

/// Expected HTTP statuses such as `200-299,301`.
public struct StatusRanges: Sendable, Equatable, CustomStringConvertible {
    public let ranges: [ClosedRange<Int>]

    /// nil when malformed (codes must be 100–599, ranges ascending).
    public init?(_ text: String) {
        var out: [ClosedRange<Int>] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let item = part.trimmingSpaces()
            let bounds = item.split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 1 || bounds.count == 2,
                  let low = Int(bounds[0]), let high = Int(bounds.last!),
                  (100...599).contains(low), (100...599).contains(high), low <= high,
                  bounds.allSatisfy({ $0.allSatisfy(\.isNumber) && !$0.isEmpty })
            else { return nil }
            out.append(low...high)
        }
        guard !out.isEmpty else { return nil }
        ranges = out
    }

    public func contains(_ status: Int) -> Bool { ranges.contains { $0.contains(status) } }

    public var description: String {
        ranges.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }
            .joined(separator: ",")
    }
}
