import Core
import Store

/// The per-monitor families of `/metrics` (SPEC §13), one sample per
/// monitor and location that checks it:
///
/// - `pingtxt_monitor_up` 1 when the location's latest check succeeded, 0
///   when it failed (like blackbox's `probe_success`); no sample while the
///   monitor is paused or the location has no result yet.
/// - `pingtxt_monitor_status` every status (`pending`, `up`, `degraded`,
///   `down`, `paused`) with 1 on the current one and 0 on the others (the
///   kube-state-metrics convention, so `== 1` and `== 0` alerts both work
///   and a change of status is never a series that just disappears). The
///   status is the location's view with the monitor's `retries` applied, the
///   same view the state machine counts towards `confirm_locations`.
/// - `pingtxt_monitor_latency_seconds` the latency of the location's latest
///   check, absent when that check failed (a failure's time is a timeout,
///   not a latency) and for heartbeats.
/// - `pingtxt_monitor_cert_expiry_timestamp_seconds` per monitor (no
///   location label: the hub keeps one certificate expiry per monitor), for
///   tls monitors and https ones.
///
/// The locations are those in the monitor's state (each location that has
/// reported, limited to the monitor's `locations` when it names some); a
/// monitor that has no result yet shows its named locations, or the hub's.
/// Built from one read of every monitor (`Monitors.metricRows`).
struct MonitorSeries {
    struct Sample {
        /// `monitor_id="…",name="…",type="…",location="…"`, escaped once.
        var labels: String
        var status: MonitorStatus
        var up: Bool?
        var latencySeconds: Double?
    }

    let hubLocation: String

    func render(_ rows: [MonitorMetricRow], into out: inout PrometheusText) {
        var samples: [Sample] = []
        samples.reserveCapacity(rows.count)
        for row in rows { samples += self.samples(row) }

        out.family("pingtxt_monitor_up", .gauge,
                   help: "1 when the monitor's latest check at this location succeeded, 0 when it failed.")
        for s in samples {
            if let up = s.up { out.sample("pingtxt_monitor_up", labelText: s.labels, up ? "1" : "0") }
        }
        out.family("pingtxt_monitor_status", .gauge,
                   help: "The monitor's status as seen from this location: 1 for the current status, 0 for the others.")
        for s in samples {
            for (status, extra) in Self.statusLabels {
                out.sample("pingtxt_monitor_status", labelText: s.labels, extra: extra, status == s.status ? "1" : "0")
            }
        }
        out.family("pingtxt_monitor_latency_seconds", .gauge,
                   help: "Latency of the monitor's latest successful check at this location, when that was its latest check.")
        for s in samples {
            if let v = s.latencySeconds { out.sample("pingtxt_monitor_latency_seconds", labelText: s.labels, "\(v)") }
        }
        out.family("pingtxt_monitor_cert_expiry_timestamp_seconds", .gauge,
                   help: "When the certificate of an https or tls monitor expires (Unix time).")
        for row in rows {
            guard let notAfter = row.certNotAfter, Self.tracksCertificate(row) else { continue }
            out.sample("pingtxt_monitor_cert_expiry_timestamp_seconds",
                       ["monitor_id": String(row.id), "name": row.name, "type": row.type], notAfter)
        }
    }

    static let statusLabels = MonitorStatus.allCases.map { ($0, PrometheusText.labelText(["status": $0.rawValue])) }

    static func tracksCertificate(_ row: MonitorMetricRow) -> Bool {
        row.type == MonitorType.tls.rawValue
            || (row.type == MonitorType.http.rawValue && (row.target ?? "").lowercased().hasPrefix("https://"))
    }

    func samples(_ row: MonitorMetricRow) -> [Sample] {
        let status = MonitorStatus(rawValue: row.status) ?? .pending
        let state = MonitorStateCoding.decode(row.state, status: status, since: 0)
        let named = Set(row.locations)
        var names = state.locations.keys.filter { named.isEmpty || named.contains($0) }.sorted()
        if names.isEmpty { names = row.locations.isEmpty ? [hubLocation] : row.locations.sorted() }
        let base = PrometheusText.labelText(["monitor_id": String(row.id), "name": row.name, "type": row.type])
        return names.map { name in
            let labels = base + "," + PrometheusText.labelText(["location": name])
            guard let l = state.locations[name], let outcome = l.outcome else {
                return Sample(labels: labels, status: row.paused ? .paused : .pending, up: nil, latencySeconds: nil)
            }
            if row.paused { return Sample(labels: labels, status: .paused, up: nil, latencySeconds: nil) }
            // Heartbeats go down at once, whatever `retries` says (SPEC §5).
            let retries = row.type == MonitorType.heartbeat.rawValue ? 0 : Int(row.retries)
            let seen: MonitorStatus = l.consecutiveFailures > retries ? .down
                : (l.consecutiveFailures == 0 && l.consecutiveSlow > retries ? .degraded : .up)
            let latency = outcome == .up ? l.lastLatencyMs.map { Double($0) / 1000 } : nil
            return Sample(labels: labels, status: seen, up: outcome == .up, latencySeconds: latency)
        }
    }
}
