import Core
import Monitoring
import Notify
import Store

/// JSON shapes of monitors, results, incidents and maintenance windows
/// (SPEC §5), fields in the spec's order.
enum MonitoringRepresentation {
    /// `dependsOn`: the parents as stored in `monitor_dependencies` (SPEC §12).
    static func monitor(_ r: MonitorRecord, openIncidentID: Int64?, inMaintenance: Bool, pingURL: String?,
                        dependsOn: [Int64] = []) -> JSON {
        var o = JSONObject([("id", .int(r.id))])
        if let config = try? MonitorConfig(record: r), case .object(let c) = config.json() {
            for (k, v) in c.entries { o[k] = v }
        }
        o["depends_on"] = .array(dependsOn.map { .int($0) })
        // Credential headers are write-only (SPEC §6); agents get them
        // through their own protocol, never from here.
        if case .object(var http)? = o["http"], case .object(let headers)? = http["headers"] {
            http["headers"] = .object(SecretMask.maskHeaders(headers))
            o["http"] = .object(http)
        }
        if r.type == "heartbeat" { o["ping_url"] = .from(pingURL) }
        o["status"] = .string(r.status)
        o["status_since"] = .time(r.statusSince)
        if let at = r.lastAt {
            o["last_check"] = .object(JSONObject([
                ("at", .time(at)), ("location", .from(r.lastLocation)), ("status", .from(r.lastStatus)),
                ("latency_ms", .from(r.lastLatencyMs)), ("status_code", .from(r.lastStatusCode)), ("error", .from(r.lastError)),
                ("packet_loss", lossJSON(r.lastPacketLoss)),
            ]))
        } else {
            o["last_check"] = .null
        }
        o["cert_expires_at"] = .time(r.certNotAfter)
        o["open_incident_id"] = .from(openIncidentID)
        o["in_maintenance"] = .bool(inMaintenance)
        o["created_at"] = .time(r.createdAt)
        o["updated_at"] = .time(r.updatedAt)
        return .object(o)
    }

    static func result(_ r: CheckResultRecord) -> JSON {
        .object(JSONObject([
            ("id", .int(r.id)), ("at", .time(r.atMs / 1000)), ("location", .string(r.location)), ("status", .string(r.status)),
            ("latency_ms", .from(r.latencyMs)), ("status_code", .from(r.statusCode)), ("error", .from(r.error)),
            ("in_maintenance", .bool(r.inMaintenance)), ("packet_loss", lossJSON(r.packetLoss)),
        ]))
    }

    /// 0–1, or null for checks other than ping.
    static func lossJSON(_ loss: Double?) -> JSON { loss.map { .double($0) } ?? .null }

    /// A result just produced by check-now.
    static func freshResult(_ r: CheckResult, degradedAfterMs: Int64?) -> JSON {
        let status: String
        if r.outcome == .down {
            status = "down"
        } else if let limit = degradedAfterMs, let latency = r.latencyMs, Int64(latency) > limit {
            status = "degraded"
        } else {
            status = "up"
        }
        return .object(JSONObject([
            ("location", .string(r.location)), ("status", .string(status)), ("latency_ms", .from(r.latencyMs.map(Int64.init))),
            ("status_code", .from(r.statusCode.map(Int64.init))), ("error", .from(r.error)), ("at", .time(r.at)),
            ("packet_loss", lossJSON(r.packetLoss)),
        ]))
    }

    /// `escalation`: the chain while it runs (SPEC §10), else null.
    static func incident(_ i: IncidentRecord, timeline: [TimelineEntry]?, escalation: EscalationPlan.Status?) -> JSON {
        var o = JSONObject([
            ("id", .int(i.id)), ("monitor_id", .int(i.monitorID)), ("kind", .string(i.kind)), ("status", .string(i.status)),
            ("cause", .string(i.cause)), ("locations", .array(i.locations.map { .string($0) })),
            ("opened_at", .time(i.openedAt)), ("closed_at", .time(i.closedAt)),
            ("acknowledged_at", .time(i.acknowledgedAt)), ("acknowledged_by", .from(i.acknowledgedBy)),
            ("suppressed_by", .from(i.suppressedBy)),
        ])
        o["escalation"] = escalation.map { e in
            .object(JSONObject([("policy_id", .int(e.policyID)), ("step", .from(e.step)), ("next_at", .time(e.nextAt))]))
        } ?? .null
        if let timeline {
            o["timeline"] = .array(timeline.map { e in
                .object(JSONObject([("at", .time(e.at)), ("event", .string(e.event)), ("detail", .string(e.detail))]))
            })
        }
        return .object(o)
    }

    /// `active` and `next_start` come from the window's schedule at `now`
    /// (SPEC §12: the next occurrence that has not begun; a one-off window's
    /// start while it is in the future).
    static func maintenance(_ w: MaintenanceRecord, now: Int64) -> JSON {
        let schedule = MaintenanceSchedule(w)
        let recurrence: JSON = w.recurrence.map { r in
            .object(JSONObject([("cron", .string(r.cron)), ("timezone", .string(r.timezone)),
                                ("duration_minutes", .int(r.durationMinutes))]))
        } ?? .null
        return .object(JSONObject([
            ("id", .int(w.id)), ("title", .string(w.title)), ("monitor_ids", .array(w.monitorIDs.map { .int($0) })),
            ("tags", .array(w.tags.map { .string($0) })), ("starts_at", .time(w.startsAt)),
            ("ends_at", w.endsAt.map { .time($0) } ?? .null), ("recurrence", recurrence), ("created_by", .from(w.createdBy)),
            ("active", .bool(schedule.isActive(at: now))), ("next_start", schedule.nextStart(after: now).map { .time($0) } ?? .null),
            ("created_at", .time(w.createdAt)),
        ]))
    }
}
