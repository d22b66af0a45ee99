import Core
import Crypto
import HTTP
import Monitoring
import Store

/// The dashboard's query (docs/web.md): `?q=` (case-insensitive substring
/// of name or target), `?status=`, `?tag=` (every given tag) and an opaque
/// `?after=` cursor, `pageSize` monitors a page, worst first. A value that
/// breaks the rules (unknown status, bad tag, foreign cursor) matches
/// nothing or starts again at page one rather than erroring a page.
struct DashboardQuery {
    static let pageSize = 100

    var query: String?
    var status: String?
    var tags: [String]
    var after: MonitorListPosition?
    /// A status or tag that cannot match anything: the page lists nothing.
    var impossible = false

    init(_ req: HTTPRequest) {
        let q = Substring(req.query("q") ?? "").trimmingSpaces()
        query = q.isEmpty ? nil : String(q.prefix(200))
        let s = req.query("status") ?? ""
        status = s.isEmpty ? nil : s
        if let s = status, MonitorStatus(rawValue: s) == nil { impossible = true }
        var tags = Set<String>()
        for item in req.queryItems where item.name == "tag" && !item.value.isEmpty {
            if let t = MonitorTagRules.normalize(item.value) { tags.insert(t) } else { impossible = true }
        }
        self.tags = tags.sorted()
        after = req.query("after").flatMap(Self.decode)
    }

    var filter: MonitorFilter { MonitorFilter(status: status, query: query, tags: tags) }

    /// `rank:id:name`, base64url: the page's last monitor by the order's keys.
    static func encode(_ p: MonitorListPosition) -> String {
        Base64URL.encode(Array("\(p.rank):\(p.id):\(p.name)".utf8))
    }

    static func decode(_ text: String) -> MonitorListPosition? {
        guard let bytes = Base64URL.decode(text), let s = String(validating: bytes, as: UTF8.self) else { return nil }
        let parts = s.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let rank = Int(parts[0]), MonitorListing.statusOrder.indices.contains(rank),
              let id = Int64(parts[1]), id >= 0 else { return nil }
        return MonitorListPosition(rank: rank, name: String(parts[2]), id: id)
    }

    /// `/?…` with these filters, a status and cursor of the caller's choosing.
    func href(status: String?, after: MonitorListPosition? = nil, tags: [String]? = nil) -> String {
        var items: [(String, String)] = []
        if let query { items.append(("q", query)) }
        if let status { items.append(("status", status)) }
        for t in tags ?? self.tags { items.append(("tag", t)) }
        if let after { items.append(("after", Self.encode(after))) }
        return items.isEmpty ? "/" : "/?" + items.map { "\($0.0)=" + FormCoding.percentEncode($0.1) }.joined(separator: "&")
    }
}

/// The template fields of one dashboard page.
enum DashboardView {
    static func fields(_ q: DashboardQuery, _ page: DashboardPage, tagCounts: [(tag: String, monitors: Int)],
                       monitoring: MonitoringService, now: Int64) -> [String: TemplateValue] {
        let items: [TemplateValue] = page.monitors.map { m, results in
            let samples = results.reversed().map(MonitorPages.sample)
            return [
                "id": .int(m.id), "name": .string(m.name), "type": .string(m.type), "target": .optional(m.target),
                "tags": .list(m.tags.map { ["tag": .string($0), "href": .string(q.href(status: q.status, tags: [$0]))] }),
                "status": .string(m.status), "in_maintenance": .bool(monitoring.isInMaintenance(m.id, at: now)),
                "sparkline": .string(Charts.sparkline(samples)),
                "last_check": .string(WebTime.text(m.lastAt)), "last_check_iso": .optional(m.lastAt.map(WebTime.iso)),
            ]
        }
        let total = page.counts.values.reduce(0, +)
        let statuses: [TemplateValue] = [["label": "all", "count": .int(Int64(total)), "href": .string(q.href(status: nil)),
                                          "current": .bool(q.status == nil), "status": "all"]]
            + MonitorListing.statusOrder.map { s in
                ["label": .string(s), "status": .string(s), "count": .int(Int64(page.counts[s] ?? 0)),
                 "href": .string(q.href(status: s)), "current": .bool(q.status == s)]
            }
        let filtered = q.query != nil || q.status != nil || !q.tags.isEmpty
        return [
            "monitors": .list(items), "statuses": .list(statuses), "total": .int(Int64(total)),
            "q": .string(q.query ?? ""), "status": .string(q.status ?? ""),
            "filter_tags": .list(q.tags.map { ["tag": .string($0)] }),
            "filtered": .bool(filtered), "later_page": .bool(q.after != nil),
            "next_href": .optional(page.next.map { q.href(status: q.status, after: $0) }),
            "first_href": .string(q.href(status: q.status)),
            "all_tags": .list(tagCounts.map { t in
                ["tag": .string(t.tag), "monitors": .int(Int64(t.monitors)), "href": .string(q.href(status: q.status, tags: [t.tag]))]
            }),
        ]
    }
}
