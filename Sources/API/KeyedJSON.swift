import Core

/// Puts an object's stable key (SPEC §13) into its API representation, right
/// after `id`, as `"key": "…"` or `"key": null`.
enum KeyedJSON {
    static func with(_ key: String?, _ json: JSON) -> JSON {
        guard case .object(let o) = json else { return json }
        var entries: [(String, JSON)] = []
        var placed = false
        for (k, v) in o.entries where k != "key" {
            entries.append((k, v))
            if k == "id" { entries.append(("key", .from(key))); placed = true }
        }
        if !placed { entries.insert(("key", .from(key)), at: 0) }
        return .object(JSONObject(entries))
    }

    /// Each object of a list with its key, looked up in `keys` by its `id`.
    static func with(_ keys: [Int64: String], _ items: [JSON]) -> [JSON] {
        items.map { item in with(item["id"]?.intValue.flatMap { keys[$0] }, item) }
    }
}
