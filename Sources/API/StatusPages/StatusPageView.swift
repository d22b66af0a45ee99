import Core
import Monitoring
import Store

/// What a public status page shows, built from the page's listed monitors
/// only. It carries names, statuses, daily uptime and open incidents, never
/// a target, URL or anything of a monitor the page does not list.
struct StatusPageView: Sendable {
    struct Monitor: Sendable {
        var id: Int64
        var name: String
        /// `up`, `degraded`, `down`, `pending`, `paused` or `maintenance`.
        var status: String
        var since: Int64
        var days: [DayBar]
        /// Over the whole period; nil when no check counted.
        var uptime: Double?
    }

    struct Incident: Sendable {
        var monitorID: Int64
        var monitorName: String
        var kind: String
        var since: Int64
        var cause: String
    }

    /// A maintenance window's occurrence in progress or coming within 7
    /// days (`MonitoringService.upcomingMaintenance`), with the names of the
    /// page's monitors it covers (never others').
    struct Maintenance: Sendable {
        var title: String
        var start: Int64
        var end: Int64
        var active: Bool
        var recurring: Bool
        var monitorNames: [String]
    }

    static let days = 90

    var page: StatusPageRecord
    var overall: OverallStatus
    var monitors: [Monitor]
    var incidents: [Incident]
    var maintenance: [Maintenance]
    var generatedAt: Int64

    /// `ids`: what the page lists now (`StatusPageService.listedMonitorIDs`:
    /// its monitor_ids, then its tags' monitors).
    static func build(_ page: StatusPageRecord, ids: [Int64], monitoring: MonitoringService, now: Int64) throws -> StatusPageView {
        // A monitor deleted since the page was saved just drops out.
        let listed = try monitoring.publicMonitorsWithOpenIncidents(ids)
        let (records, open) = (listed.map(\.0), listed.map(\.1))
        let history = try monitoring.dailyUptime(monitorIDs: records.map(\.id), days: days, now: now)
        // Every monitor has the same 90 days: their dates are written once
        // (90,000 dates were 6 % of a 1,000-monitor page).
        let today = now - ((now % 86_400) + 86_400) % 86_400
        let dates = (0..<days).map { Time.date(today - Int64(days - 1 - $0) * 86_400) }
        func date(_ dayStart: Int64) -> String {
            let back = today - dayStart
            guard back >= 0, back % 86_400 == 0, back / 86_400 < days else { return Time.date(dayStart) }
            return dates[days - 1 - Int(back / 86_400)]
        }
        var monitors: [Monitor] = []
        var incidents: [Incident] = []
        for (record, openIncidents) in zip(records, open) {
            let daily = history[record.id] ?? []
            let status = displayedStatus(id: record.id, paused: record.paused, status: record.status,
                                         monitoring: monitoring, now: now)
            let checks = daily.reduce(0) { $0 + $1.checks }
            let good = daily.reduce(0) { $0 + $1.up + $1.degraded }
            monitors.append(Monitor(
                id: record.id, name: record.name, status: status, since: record.statusSince,
                days: daily.map { DayBar(date: date($0.dayStart), uptime: $0.uptime,
                                         maintenanceChecks: $0.maintenance) },
                uptime: checks == 0 ? nil : Double(good) * 100 / Double(checks)))
            for i in openIncidents {
                incidents.append(Incident(monitorID: record.id, monitorName: record.name, kind: i.kind, since: i.openedAt,
                                          cause: redact(i.cause, target: record.target)))
            }
        }
        incidents.sort { $0.since > $1.since }
        let names = Dictionary(records.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let maintenance = try monitoring.upcomingMaintenance(monitorIDs: records.map(\.id), now: now).map { u in
            Maintenance(title: u.title, start: u.start, end: u.end, active: u.active, recurring: u.recurring,
                        monitorNames: u.monitorIDs.compactMap { names[$0] })
        }
        return StatusPageView(page: page, overall: OverallStatus.of(monitors.map(\.status)), monitors: monitors,
                              incidents: incidents, maintenance: maintenance, generatedAt: now)
    }

    /// Paused and maintenance win over the monitor's own status: during a
    /// window the page says "maintenance", not "down".
    static func displayedStatus(_ record: MonitorRecord, monitoring: MonitoringService, now: Int64) -> String {
        displayedStatus(id: record.id, paused: record.paused, status: record.status, monitoring: monitoring, now: now)
    }

    static func displayedStatus(id: Int64, paused: Bool, status: String, monitoring: MonitoringService, now: Int64) -> String {
        if paused { return "paused" }
        return monitoring.isInMaintenance(id, at: now) ? "maintenance" : status
    }

    /// A cause may quote the monitor's target (a resolver or TLS error
    /// naming the host, a URL in a redirect error); the public page never
    /// shows targets, so the target and its host are replaced.
    static func redact(_ cause: String, target: String?) -> String {
        guard let target, !target.isEmpty else { return cause }
        var out = cause.replacing(target, with: "the target")
        let host = hostOf(target)
        if host.count >= 3 { out = out.replacing(host, with: "the target") }
        return out
    }

    /// `https://user@api.example.com:8443/x` → `api.example.com`;
    /// `db.internal:5432` → `db.internal`; `[::1]:80` → `::1`.
    static func hostOf(_ target: String) -> String {
        var s = Substring(target)
        if let r = s.firstRange(of: "://") { s = s[r.upperBound...] }
        if let slash = s.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { s = s[..<slash] }
        if let at = s.lastIndex(of: "@") { s = s[s.index(after: at)...] }
        if s.hasPrefix("["), let close = s.firstIndex(of: "]") { return String(s[s.index(after: s.startIndex)..<close]) }
        if let colon = s.lastIndex(of: ":"), s.firstIndex(of: ":") == colon { s = s[..<colon] }
        return String(s)
    }
}
