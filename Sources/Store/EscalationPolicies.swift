import Core
import CSQLite

/// One step of an escalation policy: who is alerted, and how long the
/// chain waits before the next step.
public struct EscalationStepRecord: Sendable, Equatable {
    public var channelIDs: [Int64]
    public var delayMinutes: Int64

    public init(channelIDs: [Int64], delayMinutes: Int64) {
        self.channelIDs = channelIDs
        self.delayMinutes = delayMinutes
    }
}

/// A row of `escalation_policies` (SPEC §10). `steps` is JSON text in the
/// table, decoded here; Notify validates what is written.
public struct EscalationPolicyRecord: Sendable, Equatable {
    public var id: Int64 = 0
    public var name: String
    /// How many times the whole chain starts again after its last step (`repeat`).
    public var repeatCount: Int64
    public var steps: [EscalationStepRecord]
    public var createdAt: Int64 = 0
    public var updatedAt: Int64 = 0

    public init(name: String, repeatCount: Int64, steps: [EscalationStepRecord]) {
        self.name = name
        self.repeatCount = repeatCount
        self.steps = steps
    }

    init(row r: Row) throws(StoreError) {
        self.init(name: try r.text("name"), repeatCount: try r.int("repeat_count"),
                  steps: try Self.decodeSteps(try r.json("steps", table: "escalation_policies"), row: r))
        id = try r.int("id")
        createdAt = try r.int("created_at")
        updatedAt = try r.int("updated_at")
    }

    /// The column's JSON as written by `stepsJSON`; anything else means the
    /// row was edited by hand, which is reported rather than guessed.
    static func decodeSteps(_ json: JSON, row: Row) throws(StoreError) -> [EscalationStepRecord] {
        let damaged = StoreError(code: SQLITE_MISMATCH, message: "escalation_policies.steps of "
                                 + (row["id"]?.integerValue.map { "row id \($0)" } ?? "a row") + " is not a list of steps")
        guard let items = json.arrayValue else { throw damaged }
        var out: [EscalationStepRecord] = []
        for item in items {
            guard let ids = item["channel_ids"]?.arrayValue, let delay = item["delay_minutes"]?.intValue else { throw damaged }
            let channelIDs = ids.compactMap(\.intValue)
            guard channelIDs.count == ids.count else { throw damaged }
            out.append(EscalationStepRecord(channelIDs: channelIDs, delayMinutes: delay))
        }
        return out
    }

    var stepsJSON: JSON {
        .array(steps.map { s in
            .object(JSONObject([("channel_ids", .array(s.channelIDs.map { .int($0) })), ("delay_minutes", .int(s.delayMinutes))]))
        })
    }
}

/// Queries on `escalation_policies` and the monitors that name them.
public enum EscalationPolicies {
    enum SQL {
        static let insert = """
            INSERT INTO escalation_policies (name, repeat_count, steps, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?) RETURNING *
            """
        static let find = "SELECT * FROM escalation_policies WHERE id = ?"
        static let list = "SELECT * FROM escalation_policies WHERE id > ? ORDER BY id LIMIT ?"
        static let update = """
            UPDATE escalation_policies SET name = ?, repeat_count = ?, steps = ?, updated_at = ? WHERE id = ? RETURNING *
            """
        static let delete = "DELETE FROM escalation_policies WHERE id = ?"
        static let monitorsUsing = "SELECT id FROM monitors WHERE escalation_policy_id = ? ORDER BY id"
    }

    public static func insert(_ c: Connection, _ p: EscalationPolicyRecord, now: Int64) throws(StoreError) -> EscalationPolicyRecord {
        guard let row = try c.queryOne(SQL.insert, [.text(p.name), .integer(p.repeatCount), .json(p.stepsJSON),
                                                    .integer(now), .integer(now)]) else {
            throw StoreError.misuse("INSERT … RETURNING gave no row")
        }
        return try EscalationPolicyRecord(row: row)
    }

    public static func find(_ c: Connection, id: Int64) throws(StoreError) -> EscalationPolicyRecord? {
        try c.queryOne(SQL.find, [.integer(id)]).map { r throws(StoreError) in try EscalationPolicyRecord(row: r) }
    }

    /// By id, after `afterID`.
    public static func list(_ c: Connection, afterID: Int64 = 0, limit: Int = 1000) throws(StoreError) -> [EscalationPolicyRecord] {
        try c.query(SQL.list, [.integer(afterID), .integer(Int64(limit))]).map { r throws(StoreError) in
            try EscalationPolicyRecord(row: r)
        }
    }

    /// Writes name, repeat and steps; nil when there is no such policy.
    public static func update(_ c: Connection, _ p: EscalationPolicyRecord, now: Int64) throws(StoreError) -> EscalationPolicyRecord? {
        try c.queryOne(SQL.update, [.text(p.name), .integer(p.repeatCount), .json(p.stepsJSON), .integer(now), .integer(p.id)])
            .map { r throws(StoreError) in try EscalationPolicyRecord(row: r) }
    }

    @discardableResult
    public static func delete(_ c: Connection, id: Int64) throws(StoreError) -> Bool {
        try c.execute(SQL.delete, [.integer(id)])
        return c.changes > 0
    }

    /// The policies whose steps name `channelID` (deleting the channel is
    /// refused then). Policies are few and read whole, so this reads them all
    /// rather than keep a second copy of the steps in a join table.
    public static func naming(_ c: Connection, channelID: Int64) throws(StoreError) -> [EscalationPolicyRecord] {
        try list(c, limit: Int(Int32.max)).filter { p in p.steps.contains { $0.channelIDs.contains(channelID) } }
    }

    /// The monitors whose `escalation_policy_id` is `id` (a delete is refused then).
    public static func monitorsUsing(_ c: Connection, id: Int64) throws(StoreError) -> [Int64] {
        try c.query(SQL.monitorsUsing, [.integer(id)]).map { r throws(StoreError) in try r.int("id") }
    }
}
