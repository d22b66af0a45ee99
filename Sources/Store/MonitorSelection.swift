/// The monitors a maintenance window or a status page covers (SPEC §12):
/// those it names plus every monitor with any of its tags; naming neither
/// means every monitor (where the owner allows it: windows, not pages).
public struct MonitorSelection: Sendable, Equatable {
    public let everyMonitor: Bool
    /// Named first, in their order, then the tagged ones by id, each once.
    public let ids: [Int64]
    private let set: Set<Int64>

    public init(everyMonitor: Bool, ids: [Int64]) {
        self.everyMonitor = everyMonitor
        var seen = Set<Int64>()
        self.ids = ids.filter { seen.insert($0).inserted }
        set = seen
    }

    public func contains(_ monitorID: Int64) -> Bool { everyMonitor || set.contains(monitorID) }

    /// Resolves the tags now, through the `monitor_tags` index.
    public static func resolve(_ c: Connection, monitorIDs: [Int64], tags: [String],
                               emptyMeansAll: Bool) throws(StoreError) -> MonitorSelection {
        if monitorIDs.isEmpty && tags.isEmpty { return MonitorSelection(everyMonitor: emptyMeansAll, ids: []) }
        let tagged = tags.isEmpty ? [] : try MonitorTags.monitorIDs(c, anyOf: tags)
        return MonitorSelection(everyMonitor: false, ids: monitorIDs + tagged)
    }

    public static func of(_ c: Connection, _ w: MaintenanceRecord) throws(StoreError) -> MonitorSelection {
        try resolve(c, monitorIDs: w.monitorIDs, tags: w.tags, emptyMeansAll: true)
    }

    public static func of(_ c: Connection, _ p: StatusPageRecord) throws(StoreError) -> MonitorSelection {
        try resolve(c, monitorIDs: p.monitorIDs, tags: p.tags, emptyMeansAll: false)
    }
}
