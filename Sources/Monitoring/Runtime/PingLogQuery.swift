import Core
import Store

/// One ping of a heartbeat monitor's log (SPEC §13).
public struct PingLogItem: Sendable, Equatable {
    public enum Kind: String, Sendable { case success, start, fail, exit }

    public var id: Int64
    public var atMs: Int64
    public var kind: Kind
    public var exitCode: Int64?
    /// Since the start ping just before it; nil for a start, or when the
    /// ping before it is not a start (the job's start was not signalled, or
    /// that start already has its end).
    public var durationMs: Int64?
    public var sourceIP: String?
    public var userAgent: String?
    public var body: [UInt8]

    init(_ e: PingLogEntry) {
        id = e.id
        atMs = e.atMs
        // Exit-code pings keep success/fail in the table (so the state fold
        // reads them as before) and carry their code.
        kind = e.exitCode != nil ? .exit : (Kind(rawValue: e.kind) ?? .fail)
        exitCode = e.exitCode
        durationMs = kind == .start ? nil : e.startAtMs.map { e.atMs - $0 }
        sourceIP = e.client
        userAgent = e.userAgent
        body = e.body
    }
}

extension MonitoringService {
    /// A heartbeat monitor's kept pings (`retention.pings_kept` of them),
    /// newest first; `beforeID` pages backwards. Another type → not found.
    public func pingLog(monitorID: Int64, beforeID: Int64?, limit: Int) throws -> [PingLogItem] {
        let record = try find(monitorID)
        guard record.type == MonitorType.heartbeat.rawValue else {
            throw MonitoringError.notFound("Monitor \(monitorID) is not a heartbeat monitor: only heartbeats have pings.")
        }
        return try database.read { c in
            try Heartbeats.log(c, monitorID: monitorID, beforeID: beforeID, limit: limit).map(PingLogItem.init)
        }
    }
}
