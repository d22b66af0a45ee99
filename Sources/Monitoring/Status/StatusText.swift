import Core

/// Short human texts shared by the status logic (causes, durations, dates).
enum StatusText {
    /// `45s`, `6m`, `6m 30s`, `1h 5m`, `2d 3h` — at most two units, zero parts dropped.
    static func duration(_ seconds: Int64) -> String {
        let s = max(0, seconds)
        let units: [(size: Int64, name: String)] = [(86400, "d"), (3600, "h"), (60, "m"), (1, "s")]
        for (i, unit) in units.enumerated() where s >= unit.size {
            let first = "\(s / unit.size)\(unit.name)"
            guard i + 1 < units.count else { return first }
            let next = units[i + 1]
            let n = (s % unit.size) / next.size
            return n > 0 ? "\(first) \(n)\(next.name)" : first
        }
        return "0s"
    }

    /// `2026-12-04` (UTC).
    static func date(_ seconds: Int64) -> String {
        Time.date(seconds)
    }

    /// The cause text of one failed check: its error, else `HTTP <code>`, else "check failed".
    static func failure(_ result: CheckResult) -> String {
        if let error = result.error, !error.isEmpty { return error }
        if let code = result.statusCode { return "HTTP \(code)" }
        return "check failed"
    }

    /// `certificate expires in 4 days (2026-12-04)`, `… in 1 day (…)`,
    /// `… in less than a day (…)`, `certificate expired on 2026-12-04`.
    static func expiry(notAfter: Int64, at now: Int64) -> String {
        let remaining = notAfter - now
        let day = date(notAfter)
        if remaining <= 0 { return "certificate expired on \(day)" }
        let days = remaining / 86400
        switch days {
        case 0: return "certificate expires in less than a day (\(day))"
        case 1: return "certificate expires in 1 day (\(day))"
        default: return "certificate expires in \(days) days (\(day))"
        }
    }
}
