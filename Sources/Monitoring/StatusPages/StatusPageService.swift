import Core
import Store

/// Status pages: storage through `StatusPages` (the only SQL) and the
/// checks that need the database (monitors exist, slug free). Shared by the
/// JSON API, the admin page and the public pages, which draw them.
public struct StatusPageService: Sendable {
    public let monitoring: MonitoringService
    var database: Database { monitoring.database }

    public init(monitoring: MonitoringService) { self.monitoring = monitoring }

    public func list(afterID: Int64?, limit: Int) throws -> [StatusPageRecord] {
        try database.read { try StatusPages.list($0, afterID: afterID, limit: limit) }
    }

    public func find(_ id: Int64) throws -> StatusPageRecord {
        guard let p = try database.read({ try StatusPages.find($0, id: id) }) else {
            throw MonitoringError.notFound("No status page with id \(id).")
        }
        return p
    }

    public func create(_ input: StatusPageInput) throws -> StatusPageRecord {
        try checkMonitorsExist(input.monitorIDs)
        return try uniqueSlug(input.slug) {
            try database.write { c in try StatusPages.insert(c, Self.record(input), now: Time.now()) }
        }
    }

    public func update(id: Int64, _ input: StatusPageInput) throws -> StatusPageRecord {
        try checkMonitorsExist(input.monitorIDs)
        var record = Self.record(input)
        record.id = id
        let stored = try uniqueSlug(input.slug) {
            try database.write { c in try StatusPages.update(c, record, now: Time.now()) }
        }
        guard let stored else { throw MonitoringError.notFound("No status page with id \(id).") }
        return stored
    }

    public func delete(id: Int64) throws {
        guard try database.write({ c in try StatusPages.delete(c, id: id) }) else {
            throw MonitoringError.notFound("No status page with id \(id).")
        }
    }

    /// The page at `slug`, or nil.
    public func page(slug: String) throws -> StatusPageRecord? {
        try database.read { try StatusPages.find($0, slug: slug) }
    }

    /// A monitor the page at `slug` lists (nil when the page or the listing
    /// is missing): all a badge needs, without the page's history.
    public func listedMonitor(slug: String, monitorID: Int64) throws -> MonitorRecord? {
        try database.read { c -> MonitorRecord? in
            guard let page = try StatusPages.find(c, slug: slug),
                  try Self.listed(c, page).contains(monitorID) else { return nil }
            return try Monitors.find(c, id: monitorID)
        }
    }

    /// The ids the page at `slug` lists now: its `monitor_ids` in order,
    /// then the monitors with any of its tags by id, at most
    /// `StatusPageInput.maxMonitors` in all (a broad tag must not make a
    /// public page draw thousands of monitors).
    public func listedMonitorIDs(_ page: StatusPageRecord) throws -> [Int64] {
        try database.read { c in try Self.listed(c, page) }
    }

    static func listed(_ c: Connection, _ page: StatusPageRecord) throws(StoreError) -> [Int64] {
        Array(try MonitorSelection.of(c, page).ids.prefix(StatusPageInput.maxMonitors))
    }

    /// The stored form of an input.
    public static func record(_ input: StatusPageInput) -> StatusPageRecord {
        var r = StatusPageRecord(slug: input.slug, title: input.title, description: input.description,
                                 monitorIDs: input.monitorIDs)
        r.tags = input.tags
        return r
    }

    /// The stored page back as an input (a PATCH merges onto it).
    public static func input(_ record: StatusPageRecord) -> StatusPageInput {
        StatusPageInput(slug: record.slug, title: record.title, description: record.description,
                        monitorIDs: record.monitorIDs, tags: record.tags)
    }

    /// A missing monitor is a validation error of the body (`400`, naming
    /// the array element), not a missing resource: the page is what is asked for.
    func checkMonitorsExist(_ ids: [Int64]) throws {
        let missing = try database.read { c in try ids.firstIndex { try Monitors.find(c, id: $0) == nil } }
        if let i = missing {
            throw JSONFieldError(field: "monitor_ids[\(i)]", message: "monitor_ids[\(i)]: there is no monitor with id \(ids[i]).")
        }
    }

    /// Runs a write; a taken slug (the UNIQUE index) becomes `409`.
    private func uniqueSlug<T>(_ slug: String, _ write: () throws -> T) throws -> T {
        do {
            return try write()
        } catch let e as StoreError where e.isUniqueViolation {
            throw MonitoringError.fieldConflict(field: "slug", code: "slug_taken",
                                                message: "slug \(slug) is already used by another status page.")
        }
    }
}
