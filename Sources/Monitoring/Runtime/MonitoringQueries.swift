import Core
import Store

/// What the API and the pages read, as the domain answers it: handlers go
/// through these, never through the database themselves, so the queries
/// (and, later, the engine under them) can change in one place.
extension MonitoringService {
    public func monitors(filter: MonitorFilter, afterID: Int64?, limit: Int) throws -> [MonitorRecord] {
        try database.read { try Monitors.list($0, filter: filter, afterID: afterID, limit: limit) }
    }

    public func allMonitors() throws -> [MonitorRecord] {
        try database.read { try Monitors.all($0) }
    }

    public func monitorRecord(_ id: Int64) throws -> MonitorRecord {
        guard let m = try database.read({ try Monitors.find($0, id: id) }) else {
            throw MonitoringError.notFound("No monitor with id \(id).")
        }
        return m
    }

    /// Each monitor's open incident that its object names (down or
    /// degraded before expiry), in one read (one statement per 64 monitors).
    public func openIncidentIDs(_ records: [MonitorRecord]) throws -> [Int64?] {
        let open = try database.read { c in try BatchReads.openIncidents(c, monitorIDs: records.map(\.id)) }
        return records.map { r in
            open[r.id, default: []].sorted { a, b in (a.kind == "expiry" ? 1 : 0) < (b.kind == "expiry" ? 1 : 0) }.first?.id
        }
    }

    /// Monitors by id in the given order (deleted ones drop out), with only
    /// what a public status page draws (`PublicMonitorRow`), and their open
    /// incidents: what a status page lists.
    public func publicMonitorsWithOpenIncidents(_ ids: [Int64]) throws -> [(PublicMonitorRow, [IncidentRecord])] {
        let (found, open) = try database.read { c in
            (try BatchReads.publicMonitors(c, ids: ids), try BatchReads.openIncidents(c, monitorIDs: ids))
        }
        return ids.compactMap { id in found[id].map { ($0, open[id] ?? []) } }
    }

    public func results(monitorID: Int64, sinceMs: Int64 = 0, untilMs: Int64 = Int64.max, location: String? = nil,
                        beforeID: Int64? = nil, limit: Int) throws -> [CheckResultRecord] {
        try database.read {
            try CheckResults.list($0, monitorID: monitorID, sinceMs: sinceMs, untilMs: untilMs, location: location,
                                  beforeID: beforeID, limit: limit)
        }
    }

    /// Every tag in use, by tag, with how many monitors have it. Counted
    /// again only after a monitor's configuration changed (the dashboard asks
    /// on every page, and at 500,000 monitors the count reads every tag row).
    /// The version is taken before the read: a change committed during it
    /// moves the version after, so the next call counts again.
    public func tagCounts() throws -> [(tag: String, monitors: Int)] {
        let version = registry.version
        if let kept = tagCountsKept.withLock({ $0 }), kept.version == version { return kept.counts }
        let counts = try database.read { try MonitorTags.counts($0) }
        tagCountsKept.withLock { $0 = (version, counts) }
        return counts
    }

    /// One monitor's page: the record, its results in a range, the newest
    /// results and incidents, in one read.
    public func monitorHistory(_ id: Int64, fromMs: Int64, toMs: Int64, recent: Int, incidents: Int) throws
        -> (record: MonitorRecord, range: [CheckResultRecord], recent: [CheckResultRecord], incidents: [IncidentRecord]) {
        try database.read { c in
            guard let m = try Monitors.find(c, id: id) else { throw MonitoringError.notFound("No monitor with id \(id).") }
            return (m, try CheckResults.range(c, monitorID: id, fromMs: fromMs, toMs: toMs),
                    try CheckResults.list(c, monitorID: id, sinceMs: 0, untilMs: Int64.max, location: nil, beforeID: nil,
                                          limit: recent),
                    try Incidents.list(c, status: nil, monitorID: id, beforeID: nil, limit: incidents))
        }
    }

    public func incidents(status: String?, monitorID: Int64?, beforeID: Int64?, limit: Int) throws -> [IncidentRecord] {
        try database.read { try Incidents.list($0, status: status, monitorID: monitorID, beforeID: beforeID, limit: limit) }
    }

    /// An incident with its timeline.
    public func incident(_ id: Int64) throws -> (incident: IncidentRecord, timeline: [TimelineEntry]) {
        let found = try database.read { c -> (IncidentRecord, [TimelineEntry])? in
            guard let incident = try Incidents.find(c, id: id) else { return nil }
            return (incident, try Incidents.timeline(c, incidentID: id))
        }
        guard let found else { throw MonitoringError.notFound("No incident with id \(id).") }
        return found
    }

    /// Monitor names by id (the incident list names each incident's monitor).
    public func monitorNames() throws -> [Int64: String] {
        Dictionary(try allMonitors().map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
    }

    public func maintenanceWindows(beforeID: Int64?, limit: Int) throws -> [MaintenanceRecord] {
        try database.read { try MaintenanceWindows.list($0, beforeID: beforeID, limit: limit) }
    }

    public func maintenanceWindow(_ id: Int64) throws -> MaintenanceRecord {
        guard let w = try database.read({ try MaintenanceWindows.find($0, id: id) }) else {
            throw MonitoringError.notFound("No maintenance window with id \(id).")
        }
        return w
    }
}
