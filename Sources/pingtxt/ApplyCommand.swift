import Config
import Core

/// `pingtxt apply FILE [--dry-run] [--prune] [--url URL]` (SPEC §13): makes
/// the hub's objects match the file, matched by key.
///
/// 1. Every object of the file is checked first: its body goes to
///    `PUT …/by-key/{key}?dry_run=true`, which validates it and says whether
///    it would be created, updated or left unchanged. Nothing is written
///    until the whole file passes, and errors name file, line and key.
/// 2. The plan is printed: one line per change (`create monitor "api"`),
///    then `create 3, update 1, delete 0, unchanged 40`. `--dry-run` stops here.
/// 3. The changes are made in the order references need: new monitors first
///    (without their references, which may name objects not yet there),
///    channels, escalation policies, monitors, maintenance windows, status
///    pages; then, with `--prune`, objects whose key is not in the file are
///    deleted (status pages and windows first, channels last, so nothing in
///    use is deleted before its user). Objects without a key are never
///    pruned: they are not managed by any file until `export` gives them one.
enum ApplyCommand {
    enum Change: String { case create, update, unchanged }

    struct Planned {
        var item: ConfigItem
        var change: Change
    }

    static func run(_ args: Arguments) throws {
        try args.allow(["config", "dry-run", "prune", "url"])
        guard args.words.count == 2 else { throw CLIError("usage: pingtxt apply FILE [--dry-run] [--prune] [--url URL]") }
        let path = args.words[1]
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let file: ConfigDocument
        do {
            file = try ConfigDocument.parse(try ConfigCommands.readFile(path), name: name)
        } catch let e as ConfigDocumentError {
            throw CLIError(e.description)
        }
        let api = try ConfigCommands.api(args)
        let environment = HubConfig.processEnvironment()

        let current = try api.expect("GET", "/api/config")
        var ids: [ConfigSection: [String: Int64]] = [:]
        for section in ConfigSection.allCases {
            for item in current.json[section.rawValue]?.arrayValue ?? [] {
                if let key = item["key"]?.stringValue, let id = item["id"]?.intValue { ids[section, default: [:]][key] = id }
            }
        }

        // 1. Check every object and plan.
        var plan: [Planned] = []
        for item in file.items {
            let (body, pending) = try describeErrors { try file.body(item, ids: ids, environment: environment) }
            let exists = ids[item.section]?[item.key] != nil
            if pending {
                // It names an object still to be created: a new object is a
                // create and an existing one changes for sure. Its body is
                // checked when it is written (an id cannot stand in yet).
                plan.append(Planned(item: item, change: exists ? .update : .create))
                continue
            }
            let a = try put(api, item, body: body, dryRun: true, file: file)
            plan.append(Planned(item: item, change: Change(rawValue: a.json["change"]?.stringValue ?? "") ?? .update))
        }
        var deletions: [(section: ConfigSection, key: String, id: Int64)] = []
        if args.flags.contains("prune") {
            // Users before what they use: a policy named by a monitor, or a
            // channel named by a policy, cannot be deleted first.
            for section in [ConfigSection.statusPages, .maintenance, .monitors, .escalationPolicies, .channels] {
                for (key, id) in (ids[section] ?? [:]).sorted(by: { $0.key < $1.key }) where !file.defines(section, key) {
                    deletions.append((section, key, id))
                }
            }
        }

        // 2. The plan.
        for p in plan where p.change != .unchanged { print("\(p.change.rawValue) \(p.item.label)") }
        for d in deletions { print("delete \(d.section.singular) \"\(d.key)\"") }
        let count = { (c: Change) in plan.filter { $0.change == c }.count }
        print("create \(count(.create)), update \(count(.update)), delete \(deletions.count), unchanged \(count(.unchanged))")
        if args.flags.contains("dry-run") { return }

        // 3. The changes.
        let changing = plan.filter { $0.change != .unchanged }
        for p in changing where p.item.section == .monitors && p.change == .create {
            let (body, _) = try describeErrors { try file.body(p.item, ids: ids, environment: environment) }
            var first = body
            if case .object(var o) = body {
                // References wait for the second pass: they may name objects not created yet.
                o["depends_on"] = nil
                o["escalation_policy_id"] = nil
                first = .object(o)
            }
            let a = try put(api, p.item, body: first, dryRun: false, file: file)
            if let id = a.json["id"]?.intValue { ids[.monitors, default: [:]][p.item.key] = id }
        }
        let order: [ConfigSection] = [.channels, .escalationPolicies, .monitors, .maintenance, .statusPages]
        for section in order {
            for p in changing where p.item.section == section {
                let (body, _) = try describeErrors { try file.body(p.item, ids: ids, environment: environment) }
                let a = try put(api, p.item, body: body, dryRun: false, file: file)
                if let id = a.json["id"]?.intValue { ids[section, default: [:]][p.item.key] = id }
            }
        }
        for d in deletions {
            let a = try api.request("DELETE", "\(d.section.apiPath)/\(d.id)")
            guard a.status == 204 || a.status == 404 else {
                throw CLIError("cannot delete \(d.section.singular) \"\(d.key)\": \(HubAPI.describe(a))")
            }
        }
    }

    /// `PUT …/by-key/{key}`; a refusal becomes `file:line: kind "key": field: message`.
    static func put(_ api: HubAPI, _ item: ConfigItem, body: JSON, dryRun: Bool, file: ConfigDocument) throws -> HubAPI.Answer {
        let a = try api.request("PUT", "\(item.section.apiPath)/by-key/\(item.key)" + (dryRun ? "?dry_run=true" : ""), body: body)
        guard a.status == 200 || a.status == 201 else {
            let field = a.json["error"]?["field"]?.stringValue
            var message = a.json["error"]?["message"]?.stringValue ?? HubAPI.describe(a)
            if let field {
                // "interval must be …" → "interval: must be …"
                if message.hasPrefix(field + " ") { message = String(message.dropFirst(field.count + 1)) }
                message = "\(field): \(message)"
            }
            throw CLIError(file.error(item, field: field, message).description)
        }
        return a
    }

    static func describeErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let e as ConfigDocumentError {
            throw CLIError(e.description)
        }
    }
}
