import Core
import Store

/// Escalation policies (SPEC §10) for the API and the web page, and the
/// `escalation` state the incident object shows. Every write is one
/// transaction that checks what it depends on inside it: the channels a
/// policy names exist, and no monitor uses a policy being deleted.
extension NotifyService {
    public func policies(afterID: Int64 = 0, limit: Int = 1000) throws -> [EscalationPolicyRecord] {
        try database.read { c in try EscalationPolicies.list(c, afterID: afterID, limit: limit) }
    }

    public func policy(_ id: Int64) throws -> EscalationPolicyRecord {
        guard let p = try database.read({ c in try EscalationPolicies.find(c, id: id) }) else {
            throw NotifyError.notFound("No escalation policy with id \(id).")
        }
        return p
    }

    public func createPolicy(_ p: EscalationPolicyRecord) throws -> EscalationPolicyRecord {
        try database.write { c in
            try EscalationPolicyValidator.checkChannels(p, known: Set(try Channels.all(c).map(\.id)))
            return try EscalationPolicies.insert(c, p, now: Time.now())
        }
    }

    public func updatePolicy(_ p: EscalationPolicyRecord) throws -> EscalationPolicyRecord {
        try database.write { c in
            try EscalationPolicyValidator.checkChannels(p, known: Set(try Channels.all(c).map(\.id)))
            guard let out = try EscalationPolicies.update(c, p, now: Time.now()) else {
                throw NotifyError.notFound("No escalation policy with id \(p.id).")
            }
            return out
        }
    }

    /// Refused (`409 policy_in_use`) while a monitor names the policy.
    /// Chains already running with it stop at their next step.
    public func deletePolicy(_ id: Int64) throws {
        try database.write { c in
            let users = try EscalationPolicies.monitorsUsing(c, id: id)
            if !users.isEmpty {
                throw NotifyError.conflict(code: "policy_in_use", message: "Escalation policy \(id) is used by "
                                           + (users.count == 1 ? "monitor \(users[0])" : "monitors "
                                              + users.map(String.init).joined(separator: ", "))
                                           + "; set their escalation_policy_id to another policy or null first.")
            }
            guard try EscalationPolicies.delete(c, id: id) else { throw NotifyError.notFound("No escalation policy with id \(id).") }
        }
    }

    /// The `escalation` object of each incident (absent: null).
    public func escalationStatus(of incidents: [IncidentRecord]) throws -> [Int64: EscalationPlan.Status] {
        let down = incidents.filter { $0.kind == "down" && $0.status == "open" }
        if down.isEmpty { return [:] }
        let states = try database.read { c in try Escalations.find(c, incidentIDs: down.map(\.id)) }
        var out: [Int64: EscalationPlan.Status] = [:]
        for i in down { out[i.id] = EscalationPlan.status(states[i.id], incident: .init(i)) }
        return out
    }
}
