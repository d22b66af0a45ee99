import Auth
import Core
import HTTP
import Monitoring
import Store

/// `/api/monitors` and its actions (SPEC §5).
struct MonitorRoutes {
    let access: Access
    let monitoring: MonitoringService
    /// Stable keys (SPEC §13) beside the monitors' rows.
    var keys: ObjectKeyService { ObjectKeyService(database: monitoring.database) }

    func register(_ r: inout RouteTable) {
        r.get("/api/monitors", access.rule(.read, list))
        r.post("/api/monitors", access.rule(.write, create))
        r.post("/api/monitors/bulk", access.rule(.write, bulk))
        r.get("/api/monitors/{id}", access.rule(.read, show))
        r.patch("/api/monitors/{id}", access.rule(.write, update))
        r.delete("/api/monitors/{id}", access.rule(.write, delete))
        r.postBlocking("/api/monitors/{id}/check", access.rule(.write, check))
        r.post("/api/monitors/{id}/pause", access.rule(.write, pause))
        r.post("/api/monitors/{id}/resume", access.rule(.write, resume))
        r.post("/api/monitors/{id}/mute", access.rule(.write, mute))
        r.get("/api/monitors/{id}/results", access.rule(.read, results))
        r.get("/api/monitors/{id}/uptime", access.rule(.read, uptime))
    }

    func render(_ record: MonitorRecord) throws -> JSON {
        try render([record]).first!
    }

    /// Adds each monitor's open incident (down or degraded before expiry)
    /// and maintenance flag, in one read.
    func render(_ records: [MonitorRecord]) throws -> [JSON] {
        let now = Time.now()
        let open = try monitoring.openIncidentIDs(records)
        let parents = try monitoring.dependencyMap()
        let keyed = try keys.keys(.monitor)
        return zip(records, open).map { r, incident in
            KeyedJSON.with(keyed[r.id], MonitoringRepresentation.monitor(r, openIncidentID: incident,
                                                                          inMaintenance: monitoring.isInMaintenance(r.id, at: now),
                                                                          pingURL: monitoring.pingURL(r), dependsOn: parents[r.id] ?? []))
        }
    }

    func list(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let page = try Page(req)
        var filter = MonitorFilter(status: req.query("status"), type: req.query("type"), query: req.query("q"))
        if let s = filter.status, MonitorStatus(rawValue: s) == nil {
            throw HTTPError(400, "validation_failed", "status must be one of: pending, up, degraded, down, paused.", field: "status")
        }
        if let t = filter.type, MonitorType(rawValue: t) == nil {
            throw HTTPError(400, "validation_failed", "type must be one of: http, tcp, dns, tls, heartbeat.", field: "type")
        }
        if filter.query?.isEmpty == true { filter.query = nil }
        filter.tags = try Self.tagQuery(req)
        let rows = try monitoring.monitors(filter: filter, afterID: page.afterID, limit: page.fetchLimit)
        return try page.response(rows, id: \.id, renderAll: render)
    }

    /// Every `tag` query value, lowercased (matching is case-insensitive),
    /// each checked against the tag rules.
    static func tagQuery(_ req: HTTPRequest) throws -> [String] {
        var tags = Set<String>()
        for item in req.queryItems where item.name == "tag" {
            guard let tag = MonitorTagRules.normalize(item.value) else {
                throw HTTPError(400, "validation_failed",
                                "tag must be 1 to 40 characters of a-z, 0-9, '.', '_', ':' and '-'.", field: "tag")
            }
            tags.insert(tag)
        }
        guard tags.count <= MonitorTagRules.maxTags else {
            throw HTTPError(400, "validation_failed", "at most \(MonitorTagRules.maxTags) tag filters.", field: "tag")
        }
        return tags.sorted()
    }

    func create(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let body = try req.jsonFields()
        let config = try MonitorValidator.create(body)
        let key = try KeyRules.change(in: body)
        try keys.checkFree(.monitor, key, for: nil)
        let created = try monitoring.create(config)
        try keys.apply(.monitor, id: created.id, key)
        return .json(try render(created), status: 201)
    }

    func bulk(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let body = try req.jsonFields()
        if try body.string("action") == "create" { return try bulkCreate(body) }
        let request = try BulkRequest.parse(body)
        let affected = try monitoring.bulk(request, by: p.user.email)
        return .json(["affected": .array(affected.map { .int($0) })])
    }

    /// `"action": "create"`: the new monitors' ids in the order given. Keys
    /// are checked before anything is created and set after, as for one
    /// monitor.
    func bulkCreate(_ body: JSONFields) throws -> HTTPResponse {
        let request = try BulkCreate.parse(body)
        for (i, item) in request.items.enumerated() {
            do {
                try keys.checkFree(.monitor, item.key, for: nil)
            } catch MonitoringError.fieldConflict(let field, let code, let message) {
                throw MonitoringError.fieldConflict(field: "monitors[\(i)].\(field)", code: code, message: "monitors[\(i)]: \(message)")
            }
        }
        let created = try monitoring.create(request.items.map(\.config))
        for (record, item) in zip(created, request.items) { try keys.apply(.monitor, id: record.id, item.key) }
        return .json(["affected": .array(created.map { .int($0.id) })])
    }

    func show(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        return .json(try render(try monitoring.find(try req.intParameter("id"))))
    }

    func update(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        let current = try monitoring.config(id)
        let body = try req.jsonFields()
        let config = try MonitorValidator.patch(current, with: body)
        let key = try KeyRules.change(in: body)
        try keys.checkFree(.monitor, key, for: id)
        let updated = try monitoring.update(id: id, config)
        try keys.apply(.monitor, id: id, key)
        return .json(try render(updated))
    }

    func delete(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        try monitoring.delete(id: try req.intParameter("id"))
        return .noContent()
    }

    func check(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        // Runs on the blocking pool: the hub's own check and the wait for the
        // agents (at most 15 s) hold this thread, not an API worker.
        let outcome = try monitoring.checkNow(id: id)
        let degraded = outcome.record.degradedAfterMs
        return .json(["monitor": try render(outcome.record),
                      "results": .array(outcome.results.map { MonitoringRepresentation.freshResult($0, degradedAfterMs: degraded) }),
                      "missing_locations": .array(outcome.missingLocations.map { .string($0) })])
    }

    func pause(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        return .json(try render(try monitoring.pause(id: try req.intParameter("id"))))
    }

    func resume(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        return .json(try render(try monitoring.resume(id: try req.intParameter("id"))))
    }

    func mute(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        let minutes = try req.optionalJSONFields().int("minutes", in: 1...43_200) ?? 60
        let window = try monitoring.mute(monitorID: id, minutes: minutes, by: p.user.email)
        return .json(MonitoringRepresentation.maintenance(window, now: Time.now()), status: 201)
    }

    func results(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        _ = try monitoring.find(id)
        let page = try Page(req)
        let since = try timeQuery(req, "since") ?? 0
        let until = try timeQuery(req, "until") ?? Int64.max / 1000
        let rows = try monitoring.results(monitorID: id, sinceMs: since * 1000, untilMs: until * 1000, location: req.query("location"),
                                          beforeID: page.afterID, limit: page.fetchLimit)
        return page.response(rows, id: \.id, render: MonitoringRepresentation.result)
    }

    func uptime(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        let period = req.query("period") ?? "24h"
        guard let seconds = MonitoringService.uptimePeriods[period] else {
            throw HTTPError(400, "validation_failed", "period must be one of: 24h, 7d, 30d, 90d.", field: "period")
        }
        let s = try monitoring.uptime(monitorID: id, seconds: seconds)
        return .json(.object(JSONObject([
            ("period", .string(period)), ("uptime", s.uptime.map { .double(($0 * 1000).rounded() / 1000) } ?? .null),
            ("checks", .int(Int64(s.checks))), ("avg_latency_ms", .from(s.avgLatencyMs.map(Int64.init))),
            ("p95_latency_ms", .from(s.p95LatencyMs.map(Int64.init))), ("maintenance_seconds", .int(Int64(s.maintenanceSeconds))),
        ])))
    }

    func timeQuery(_ req: HTTPRequest, _ name: String) throws -> Int64? {
        guard let text = req.query(name) else { return nil }
        guard let t = Time.parseRFC3339(text) else {
            throw HTTPError(400, "validation_failed", "\(name) must be an RFC 3339 time such as 2026-11-29T10:00:00Z.", field: name)
        }
        return t
    }
}
