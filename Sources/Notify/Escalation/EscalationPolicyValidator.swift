import Core
import Store

/// Builds a validated policy row from an API body (SPEC §10); the JSON API
/// and the web form (which builds the same body) share it. A PATCH is
/// merged over the stored policy: absent fields keep their values, `steps`
/// when given replaces them all. Whether each channel exists is checked by
/// `checkChannels` inside the write transaction, against the stored channels.
public enum EscalationPolicyValidator {
    public static let nameCharacters = 100
    public static let steps: ClosedRange<Int> = 1...10
    public static let channelsPerStep: ClosedRange<Int> = 1...20
    public static let delayMinutes: ClosedRange<Int64> = 1...1440
    public static let repeats: ClosedRange<Int64> = 0...9

    public static func create(_ body: JSONFields) throws(JSONFieldError) -> EscalationPolicyRecord {
        try parse(body, existing: nil)
    }

    public static func patch(_ existing: EscalationPolicyRecord, with body: JSONFields) throws(JSONFieldError) -> EscalationPolicyRecord {
        var record = try parse(body, existing: existing)
        record.id = existing.id
        record.createdAt = existing.createdAt
        return record
    }

    static func parse(_ f: JSONFields, existing: EscalationPolicyRecord?) throws(JSONFieldError) -> EscalationPolicyRecord {
        let name = try f.string("name")?.trimmingWhitespace() ?? existing?.name
        guard let name, !name.isEmpty, TextLimit.fits(name, characters: nameCharacters) else {
            throw JSONFieldError(field: "name", message: "name must be 1 to \(TextLimit.describe(characters: nameCharacters)).")
        }
        let repeatCount = try f.int("repeat", in: repeats) ?? existing?.repeatCount ?? 0
        let steps: [EscalationStepRecord]
        if f.has("steps") || existing == nil {
            steps = try parseSteps(f)
        } else {
            steps = existing?.steps ?? []
        }
        return EscalationPolicyRecord(name: name, repeatCount: repeatCount, steps: steps)
    }

    static func parseSteps(_ f: JSONFields) throws(JSONFieldError) -> [EscalationStepRecord] {
        guard case .array(let items)? = f.object["steps"] else {
            throw JSONFieldError(field: "steps", message: "steps is required: a list of 1 to \(steps.upperBound) steps.")
        }
        guard steps.contains(items.count) else {
            throw JSONFieldError(field: "steps", message: "steps must hold 1 to \(steps.upperBound) steps.")
        }
        var out: [EscalationStepRecord] = []
        for (i, item) in items.enumerated() {
            let step = try JSONFields(item, path: "steps[\(i)]")
            let field = step.name("channel_ids")
            guard case .array(let ids)? = step.object["channel_ids"], channelsPerStep.contains(ids.count) else {
                throw JSONFieldError(field: field, message: "\(field) must list 1 to \(channelsPerStep.upperBound) channel ids.")
            }
            var channelIDs: [Int64] = []
            for id in ids {
                guard let n = id.intValue, n > 0 else { throw JSONFieldError(field: field, message: "\(field) must hold channel ids.") }
                // A channel named twice in one step is alerted once.
                if !channelIDs.contains(n) { channelIDs.append(n) }
            }
            guard let delay = try step.int("delay_minutes", in: delayMinutes) else {
                throw JSONFieldError(field: step.name("delay_minutes"), message: "\(step.name("delay_minutes")) is required (1 to 1440).")
            }
            out.append(EscalationStepRecord(channelIDs: channelIDs, delayMinutes: delay))
        }
        return out
    }

    /// Every channel a step names must exist: the first that does not is
    /// reported on its step's `channel_ids`.
    public static func checkChannels(_ p: EscalationPolicyRecord, known: Set<Int64>) throws(JSONFieldError) {
        for (i, step) in p.steps.enumerated() {
            if let missing = step.channelIDs.first(where: { !known.contains($0) }) {
                throw JSONFieldError(field: "steps[\(i)].channel_ids", message: "steps[\(i)].channel_ids: no channel with id \(missing).")
            }
        }
    }
}
