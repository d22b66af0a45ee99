import Core
import Crypto
import Store

/// `POST /api/monitors/bulk` with `"action": "create"`: up to 1,000 new
/// monitors in one request and one transaction (issue 20: half a million
/// monitors through the single-monitor endpoint take minutes, as each is a
/// request and a commit of its own).
///
/// Each item is what `POST /api/monitors` takes (its `key` included), with
/// the same rules; any invalid item is a `400` naming it
/// (`monitors[3].name`) and nothing is created. The new monitors are checked
/// first at their slot in the schedule (`SchedulePlan`), within one
/// interval, not all at once as a single create is: a thousand checks of
/// one target in the same second would be a burst the schedule exists to
/// avoid.
public struct BulkCreate: Sendable {
    public struct Item: Sendable {
        public var config: MonitorConfig
        public var key: KeyChange
    }

    public var items: [Item]

    public static let maxMonitors = 1000

    public static func parse(_ b: JSONFields) throws(JSONFieldError) -> BulkCreate {
        for field in ["ids", "tag", "minutes"] where b.has(field) {
            throw JSONFieldError(field: field, message: "\(field) does not apply to the create action.")
        }
        guard let bodies = b.object["monitors"]?.arrayValue, !bodies.isEmpty, bodies.count <= maxMonitors else {
            throw JSONFieldError(field: "monitors", message: "monitors must be an array of 1 to \(maxMonitors) monitors.")
        }
        var items: [Item] = []
        var keys = Set<String>()
        for (i, json) in bodies.enumerated() {
            guard case .object = json else {
                throw JSONFieldError(field: "monitors[\(i)]", message: "monitors[\(i)] must be an object.")
            }
            let item = try Self.item(i) { () throws(JSONFieldError) in
                let body = try JSONFields(json)
                return Item(config: try MonitorValidator.create(body), key: try KeyRules.change(in: body))
            }
            if case .set(let key) = item.key, !keys.insert(key).inserted {
                throw JSONFieldError(field: "monitors[\(i)].key", message: "monitors[\(i)]: the key \"\(key)\" is given twice.")
            }
            items.append(item)
        }
        return BulkCreate(items: items)
    }

    /// Runs `body` for item `i`, naming the item in its error.
    static func item<T>(_ i: Int, _ body: () throws(JSONFieldError) -> T) throws(JSONFieldError) -> T {
        do {
            return try body()
        } catch {
            let inner = error.field.isEmpty ? "" : "." + error.field
            throw JSONFieldError(field: "monitors[\(i)]" + inner, message: "monitors[\(i)]: " + error.message)
        }
    }
}

extension MonitoringService {
    /// Creates every monitor of `configs` in one transaction (all or none)
    /// and returns them in order. Policy and dependency errors name the item.
    public func create(_ configs: [MonitorConfig]) throws -> [MonitorRecord] {
        let records = configs.map(Self.newRecord)
        let stored = try database.write { c in
            try zip(configs, records).enumerated().map { i, pair in try insertNew(pair.0, pair.1, item: i, on: c) }
        }
        for (config, record) in zip(configs, stored) { registerNew(record, config) }
        agents.assignmentsChanged()
        if configs.contains(where: { !$0.tags.isEmpty }) { try calendar.reload() }
        return stored
    }
}
