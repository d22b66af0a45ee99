import Auth
import Core
import HTTP
import Monitoring
import Notify
import Store

/// What `pingtxt export` reads (SPEC §13):
///
/// - `POST /api/config/keys` W gives every object without a stable key one
///   made from its name, unique per kind → `200 {"assigned": {kind: n}}`.
/// - `GET /api/config` R: every monitor, channel, maintenance window,
///   escalation policy and status page in its usual API representation,
///   each with `"secret_fields"`: the paths (`config.bot_token`,
///   `http.headers.Authorization`) whose values are secrets. Secrets are
///   masked as everywhere else, unless `?secrets=reveal`, which needs an
///   admin's write credential that is not an OAuth access token (the
///   `adminAccountWrite` rule): the one place where stored secrets leave the
///   hub, for an admin's full backup-as-code.
struct ConfigRoutes {
    let access: Access
    let monitors: MonitorRoutes
    let channels: ChannelRoutes
    let maintenance: MaintenanceRoutes
    let policies: EscalationPolicyRoutes
    let statusPages: StatusPageRoutes
    let keys: ObjectKeyService

    static let everything = 1_000_000

    func register(_ r: inout RouteTable) {
        r.get("/api/config", access.rule(.read, export))
        r.post("/api/config/keys", access.rule(.write, assignKeys))
    }

    func assignKeys(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let counts = try keys.assignMissing()
        let assigned = JSONObject(KeyedKind.allCases.map { (Self.section($0), JSON.int(Int64(counts[$0] ?? 0))) })
        return .json(.object(JSONObject([("assigned", .object(assigned))])))
    }

    /// The export file's section for a kind (also the CLI's).
    static func section(_ kind: KeyedKind) -> String {
        switch kind {
        case .monitor: return "monitors"
        case .channel: return "channels"
        case .maintenance: return "maintenance"
        case .escalationPolicy: return "escalation_policies"
        case .statusPage: return "status_pages"
        }
    }

    func export(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let reveal: Bool
        switch req.query("secrets") {
        case nil, "mask"?: reveal = false
        case "reveal"?:
            try Access.authorize(p, .adminAccountWrite)
            reveal = true
        default:
            throw HTTPError(400, "validation_failed", "secrets must be mask or reveal.", field: "secrets")
        }
        let now = Time.now()
        let monitoring = monitors.monitoring
        let records = try monitoring.monitors(filter: MonitorFilter(), afterID: nil, limit: Self.everything)
        let monitorItems = zip(records, try monitors.render(records)).map { record, masked in
            withSecrets(masked, raw: Self.rawHeaders(masked, record), reveal: reveal)
        }
        let channelItems = try channels.notify.all().map { r in
            let masked = try channels.represent(r)
            var raw = masked
            if case .object(var o) = masked { o["config"] = .object(r.config); raw = .object(o) }
            return withSecrets(masked, raw: raw, reveal: reveal)
        }
        let mKeys = try keys.keys(.maintenance)
        let windows = try monitoring.maintenanceWindows(beforeID: nil, limit: Self.everything).reversed().map { w in
            withSecrets(KeyedJSON.with(mKeys[w.id], MonitoringRepresentation.maintenance(w, now: now)), raw: nil, reveal: false)
        }
        let pKeys = try keys.keys(.escalationPolicy)
        let policyItems = try policies.notify.policies(afterID: 0, limit: Self.everything).map { r in
            withSecrets(KeyedJSON.with(pKeys[r.id], EscalationPolicyRoutes.represent(r)), raw: nil, reveal: false)
        }
        let sKeys = try keys.keys(.statusPage)
        let pageItems = try statusPages.pages.list(afterID: nil, limit: Self.everything).map { r in
            withSecrets(KeyedJSON.with(sKeys[r.id], StatusPageRepresentation.page(r)), raw: nil, reveal: false)
        }
        return .json(.object(JSONObject([
            ("monitors", .array(monitorItems)), ("channels", .array(channelItems)), ("maintenance", .array(windows)),
            ("escalation_policies", .array(policyItems)), ("status_pages", .array(pageItems)),
        ])))
    }

    /// The monitor's representation with its stored (unmasked) headers.
    static func rawHeaders(_ masked: JSON, _ record: MonitorRecord) -> JSON {
        guard case .object(var o) = masked, case .object(var http)? = o["http"],
              case .object(let stored)? = record.settings["http"], let headers = stored["headers"] else { return masked }
        http["headers"] = headers
        o["http"] = .object(http)
        return .object(o)
    }

    /// `secret_fields` added: every path where the masked and the stored
    /// representation differ; the values are the stored ones when revealed.
    func withSecrets(_ masked: JSON, raw: JSON?, reveal: Bool) -> JSON {
        var paths: [String] = []
        if let raw { Self.differences(masked, raw, path: "", into: &paths) }
        guard case .object(var o) = (reveal ? raw ?? masked : masked) else { return masked }
        o["secret_fields"] = .array(paths.map { .string($0) })
        return .object(o)
    }

    static func differences(_ a: JSON, _ b: JSON, path: String, into out: inout [String]) {
        if case .object(let x) = a, case .object(let y) = b {
            for (k, v) in y.entries {
                differences(x[k] ?? .null, v, path: path.isEmpty ? k : "\(path).\(k)", into: &out)
            }
        } else if a != b {
            out.append(path)
        }
    }
}
