import Auth
import Core
import HTTP
import Monitoring
import Notify
import Store

/// `PUT /api/{kind}/by-key/{key}` (SPEC §13): creates the object with that
/// stable key (`201`) or replaces it (`200`): every field left out takes
/// its default, as in a create, except stored secrets (channel secrets,
/// credential headers of http monitors), which stay when left out or sent
/// as the mask, as PATCH has it, so a file without secrets never erases
/// them. An answer carries `Pingtxt-Change: created|updated|unchanged`; an
/// unchanged object is not written (its `updated_at` stays). With
/// `?dry_run=true` nothing is written and the answer is
/// `200 {"key", "change": "create"|"update"|"unchanged"}` after the body's
/// validation (checks that need the database, such as unknown ids in
/// references, run only on the real write). `pingtxt apply` is built on it.
struct ByKeyRoutes {
    let access: Access
    let monitors: MonitorRoutes
    let channels: ChannelRoutes
    let maintenance: MaintenanceRoutes
    let policies: EscalationPolicyRoutes
    let statusPages: StatusPageRoutes
    let keys: ObjectKeyService

    func register(_ r: inout RouteTable) {
        r.put("/api/monitors/by-key/{key}", access.rule(.write, putMonitor))
        r.put("/api/channels/by-key/{key}", access.rule(.write, putChannel))
        r.put("/api/maintenance/by-key/{key}", access.rule(.write, putMaintenance))
        r.put("/api/escalation-policies/by-key/{key}", access.rule(.write, putPolicy))
        r.put("/api/status-pages/by-key/{key}", access.rule(.write, putStatusPage))
    }

    enum Change: String { case create, update, unchanged }

    /// The key from the path, the body, and the id of the object that holds it.
    func target(_ req: HTTPRequest, _ kind: KeyedKind) throws -> (key: String, body: JSONFields, id: Int64?) {
        let key = try KeyRules.validate(req.parameters["key"] ?? "")
        let body = try req.jsonFields()
        if case .set(let k) = try KeyRules.change(in: body), k != key {
            throw HTTPError(400, "validation_failed", "key in the body must be the key of the path (\(key)), or left out.", field: "key")
        } else if body.has("key"), body.object["key"] == .null {
            throw HTTPError(400, "validation_failed", "key cannot be cleared here; use PATCH on the object's id.", field: "key")
        }
        return (key, body, try keys.id(kind, key: key))
    }

    var isDryRun: (HTTPRequest) -> Bool { { $0.query("dry_run") == "true" || $0.query("dry_run") == "1" } }

    func dryRun(_ key: String, _ change: Change) -> HTTPResponse {
        var r = HTTPResponse.json(.object(JSONObject([("key", .string(key)), ("change", .string(change.rawValue))])))
        r.headers.set("Pingtxt-Change", change.rawValue)
        return r
    }

    func answer(_ json: JSON, _ change: Change) -> HTTPResponse {
        var r = HTTPResponse.json(json, status: change == .create ? 201 : 200)
        r.headers.set("Pingtxt-Change", change == .create ? "created" : change == .update ? "updated" : "unchanged")
        return r
    }

    /// Sets the new object's key; when another request took the key in the
    /// meantime the object just created is removed again, so a lost race
    /// leaves nothing behind but the `409`.
    func claim(_ kind: KeyedKind, _ id: Int64, _ key: String, undo: () throws -> Void) throws {
        do {
            try keys.apply(kind, id: id, .set(key))
        } catch {
            try? undo()
            throw error
        }
    }

    // MARK: Monitors

    func putMonitor(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let (key, body, id) = try target(req, .monitor)
        let monitoring = monitors.monitoring
        guard let id else {
            var config = try MonitorValidator.create(body)
            if isDryRun(req) { return dryRun(key, .create) }
            config.dependsOn = config.dependsOn ?? []
            let created = try monitoring.create(config)
            try claim(.monitor, created.id, key) { try monitoring.delete(id: created.id) }
            return answer(try monitors.render(try monitoring.find(created.id)), .create)
        }
        // The stored row, not the registry's copy: that keeps the config as
        // it was given (a heartbeat's interval is stored as its period).
        var current = try MonitorConfig(record: try monitoring.find(id))
        var config = try MonitorValidator.create(try JSONFields(.object(restoringHeaders(body.object, stored: current))))
        if config.type != current.type {
            throw HTTPError(400, "validation_failed", "type cannot be changed; delete the monitor or use another key.", field: "type")
        }
        config.dependsOn = (config.dependsOn ?? []).sorted()
        current.dependsOn = (try monitoring.dependencyMap()[id] ?? []).sorted()
        if config == current {
            return isDryRun(req) ? dryRun(key, .unchanged) : answer(try monitors.render(try monitoring.find(id)), .unchanged)
        }
        if isDryRun(req) { return dryRun(key, .update) }
        return answer(try monitors.render(try monitoring.update(id: id, config)), .update)
    }

    /// Credential headers sent as the mask keep their stored values.
    func restoringHeaders(_ body: JSONObject, stored: MonitorConfig) -> JSONObject {
        guard case .object(var http)? = body["http"], case .object(let given)? = http["headers"],
              case .object(let oldHTTP)? = stored.settingsJSON()["http"], case .object(let old)? = oldHTTP["headers"] else { return body }
        var out = body
        http["headers"] = .object(SecretMask.restoreHeaders(given, stored: old))
        out["http"] = .object(http)
        return out
    }

    // MARK: Channels

    /// A channel's fields and their create defaults: a replace starts from
    /// these, not from the stored values (only secrets are kept).
    static let channelDefaults: [(String, JSON)] = [
        ("enabled", .bool(true)), ("events", .array([.string("monitor_down"), .string("monitor_up")])),
        ("monitor_ids", .array([])), ("reminder_minutes", .int(0)), ("min_priority", .int(0)),
    ]

    func putChannel(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let (key, body, id) = try target(req, .channel)
        let notify = channels.notify
        guard let id, let existing = try notify.find(id) else {
            let record = try ChannelValidator.create(body)
            if isDryRun(req) { return dryRun(key, .create) }
            let created = try notify.create(record)
            try claim(.channel, created.id, key) { _ = try notify.delete(created.id) }
            return answer(try channels.represent(created), .create)
        }
        var full = body.object
        for (k, v) in Self.channelDefaults where full[k] == nil || full[k] == .null { full[k] = v }
        let record = try ChannelValidator.patch(existing, with: try JSONFields(.object(full)))
        let same = record.name == existing.name && record.type == existing.type && record.enabled == existing.enabled
            && record.events == existing.events && record.monitorIDs == existing.monitorIDs
            && record.reminderMinutes == existing.reminderMinutes && record.minPriority == existing.minPriority
            && record.config == existing.config
        if same { return isDryRun(req) ? dryRun(key, .unchanged) : answer(try channels.represent(existing), .unchanged) }
        if isDryRun(req) { return dryRun(key, .update) }
        guard let out = try notify.update(record) else { throw HTTPError.notFound("No channel with key \(key).") }
        return answer(try channels.represent(out), .update)
    }

    // MARK: Maintenance windows

    func putMaintenance(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let (key, body, id) = try target(req, .maintenance)
        let monitoring = maintenance.monitoring
        let input = try MaintenanceInput.parse(body)
        guard let id else {
            if isDryRun(req) { return dryRun(key, .create) }
            let w = try monitoring.createMaintenance(input, by: p.user.email)
            try claim(.maintenance, w.id, key) { try monitoring.deleteMaintenance(id: w.id) }
            return answer(try maintenance.represent(w, now: Time.now()), .create)
        }
        let w = try monitoring.maintenanceWindow(id)
        if w.title == input.title && w.monitorIDs == input.monitorIDs && w.tags == input.tags
            && w.startsAt == input.startsAt && w.endsAt == input.endsAt && w.recurrence == input.recurrence {
            return isDryRun(req) ? dryRun(key, .unchanged) : answer(try maintenance.represent(w, now: Time.now()), .unchanged)
        }
        if isDryRun(req) { return dryRun(key, .update) }
        return answer(try maintenance.represent(try monitoring.updateMaintenance(id: id, input), now: Time.now()), .update)
    }

    // MARK: Escalation policies

    func putPolicy(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let (key, body, id) = try target(req, .escalationPolicy)
        let notify = policies.notify
        var record = try EscalationPolicyValidator.create(body)
        guard let id else {
            if isDryRun(req) { return dryRun(key, .create) }
            let created = try notify.createPolicy(record)
            try claim(.escalationPolicy, created.id, key) { try notify.deletePolicy(created.id) }
            return answer(try policies.keyed(created), .create)
        }
        let existing = try notify.policy(id)
        if record.name == existing.name && record.repeatCount == existing.repeatCount && record.steps == existing.steps {
            return isDryRun(req) ? dryRun(key, .unchanged) : answer(try policies.keyed(existing), .unchanged)
        }
        if isDryRun(req) { return dryRun(key, .update) }
        record.id = id
        return answer(try policies.keyed(try notify.updatePolicy(record)), .update)
    }

    // MARK: Status pages

    func putStatusPage(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let (key, body, id) = try target(req, .statusPage)
        let pages = statusPages.pages
        let input = try StatusPageInput.parse(body)
        guard let id else {
            if isDryRun(req) { return dryRun(key, .create) }
            let created = try pages.create(input)
            try claim(.statusPage, created.id, key) { try pages.delete(id: created.id) }
            return answer(try statusPages.keyed(created), .create)
        }
        let existing = try pages.find(id)
        if StatusPageService.input(existing) == input {
            return isDryRun(req) ? dryRun(key, .unchanged) : answer(try statusPages.keyed(existing), .unchanged)
        }
        if isDryRun(req) { return dryRun(key, .update) }
        return answer(try statusPages.keyed(try pages.update(id: id, input)), .update)
    }
}
