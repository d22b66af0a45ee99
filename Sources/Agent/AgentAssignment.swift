import Core
import Monitoring

/// The answer of `GET /api/agent/monitors`: who the hub says this agent is,
/// how often to ask again, and the monitors to run here.
struct AgentAssignment: Sendable {
    var agentID: Int64
    var agentName: String
    /// Seconds; at least 1.
    var pollInterval: Int
    var monitors: [Int64: MonitorConfig]
    /// Monitor objects that could not be used, with the reason (logged, not fatal:
    /// one odd monitor must not stop the others from being checked).
    var skipped: [String]

    /// Parses and validates with the hub's own monitor rules
    /// (`MonitorValidator`), so the agent runs exactly what the hub would.
    static func parse(_ body: [UInt8]) throws(AgentProtocolError) -> AgentAssignment {
        let root: JSON
        do { root = try JSON.parse(body) } catch { throw AgentProtocolError("monitors answer is not JSON: \(error)") }
        guard let agent = root["agent"]?.objectValue, let name = agent["name"]?.stringValue else {
            throw AgentProtocolError("monitors answer has no agent.name")
        }
        guard let list = root["monitors"]?.arrayValue else { throw AgentProtocolError("monitors answer has no monitors list") }
        let interval = Int(root["poll_interval"]?.intValue ?? 10)
        var result = AgentAssignment(agentID: agent["id"]?.intValue ?? 0, agentName: name,
                                     pollInterval: min(max(interval, 1), 3600), monitors: [:], skipped: [])
        for item in list {
            guard let id = item["id"]?.intValue else {
                result.skipped.append("a monitor without an id")
                continue
            }
            do {
                let config = try MonitorValidator.create(try JSONFields(item))
                // The hub should not send these; if it does, there is nothing to poll.
                if config.type == .heartbeat || config.paused { continue }
                result.monitors[id] = config
            } catch {
                result.skipped.append("monitor \(id): \(error.message)")
            }
        }
        return result
    }
}

/// An answer of the hub that does not follow docs/agents.md.
struct AgentProtocolError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
