import Core
import Store

/// `POST /api/monitors/bulk` (SPEC §12): one action on many monitors
/// (`"action": "create"` is `BulkCreate`, parsed apart: it names no monitors).
public struct BulkRequest: Sendable, Equatable {
    public enum Action: String, Sendable, CaseIterable {
        case pause, resume, mute, delete
    }

    /// Which monitors: a list of ids, or every monitor with one tag.
    public enum Target: Sendable, Equatable {
        case ids([Int64])
        case tag(String)
    }

    public var action: Action
    public var target: Target
    /// For `mute` only: as the single mute, 1–43,200, default 60.
    public var minutes: Int64

    public static let maxIDs = 1000

    public static func parse(_ b: JSONFields) throws(JSONFieldError) -> BulkRequest {
        let text = try b.requiredString("action")
        guard let action = Action(rawValue: text) else {
            throw JSONFieldError(field: "action", message: "action must be one of: pause, resume, mute, delete, create.")
        }
        let target: Target
        switch (b.has("ids"), b.has("tag")) {
        case (true, false):
            guard let items = b.object["ids"]?.arrayValue, !items.isEmpty, items.count <= maxIDs else {
                throw JSONFieldError(field: "ids", message: "ids must be an array of 1 to \(maxIDs) monitor ids.")
            }
            var ids: [Int64] = []
            for (i, item) in items.enumerated() {
                guard let id = item.intValue, id > 0 else {
                    throw JSONFieldError(field: "ids[\(i)]", message: "ids[\(i)] must be a monitor id.")
                }
                if !ids.contains(id) { ids.append(id) }
            }
            target = .ids(ids)
        case (false, true):
            guard let raw = try b.string("tag"), let tag = MonitorTagRules.normalize(raw) else {
                throw JSONFieldError(field: "tag", message: "tag must be 1 to 40 characters of a-z, 0-9, '.', '_', ':' and '-'.")
            }
            target = .tag(tag)
        default:
            throw JSONFieldError(field: "ids", message: "give exactly one of ids and tag.")
        }
        if action != .mute && b.has("minutes") {
            throw JSONFieldError(field: "minutes", message: "minutes applies to the mute action only.")
        }
        let minutes = try b.int("minutes", in: 1...43_200) ?? 60
        return BulkRequest(action: action, target: target, minutes: minutes)
    }
}

extension MonitoringService {
    /// Applies the action to every matched monitor and returns their ids,
    /// ascending. Ids are all or nothing: one that names no monitor is a
    /// `400` listing the unknown ones, before anything changes (a typo must
    /// not pause half a list). A tag that matches nothing affects nothing.
    /// Pause, resume and delete go monitor by monitor, as the single
    /// actions (incidents close, the schedule follows); a mute is one
    /// window naming them all.
    public func bulk(_ request: BulkRequest, by: String?) throws -> [Int64] {
        let ids: [Int64]
        switch request.target {
        case .ids(let given):
            // The database, not this hub's registry: a monitor just created
            // through another hub is known there a beat before it is here.
            let missing = try database.read { c in try given.filter { try Monitors.status(c, id: $0) == nil } }
            if !missing.isEmpty {
                throw JSONFieldError(field: "ids", message: "No monitor with id " + missing.map(String.init).joined(separator: ", ") + ".")
            }
            ids = given.sorted()
        case .tag(let tag):
            ids = try database.read { c in try MonitorTags.monitorIDs(c, anyOf: [tag]) }
        }
        guard !ids.isEmpty else { return [] }
        switch request.action {
        case .pause: for id in ids { _ = try pause(id: id) }
        case .resume: for id in ids { _ = try resume(id: id) }
        case .delete: for id in ids { try delete(id: id) }
        case .mute:
            let now = Time.now()
            let what: String
            switch request.target {
            case .tag(let tag): what = "tag \(tag) (\(ids.count) monitors)"
            case .ids: what = ids.count == 1 ? "1 monitor" : "\(ids.count) monitors"
            }
            _ = try createMaintenance(MaintenanceInput(title: "Muted \(what) for \(request.minutes) min", monitorIDs: ids,
                                                       startsAt: now, endsAt: now + request.minutes * 60), by: by)
        }
        return ids
    }
}
