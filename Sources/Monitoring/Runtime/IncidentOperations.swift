import Core
import Store

extension MonitoringService {
    /// Records who acknowledged an open incident (first one wins) and adds it
    /// to the timeline. Reminders and escalation check `acknowledged_at`.
    public func acknowledge(incidentID: Int64, by email: String, userID: Int64) throws -> IncidentRecord {
        try database.write { c in
            guard let incident = try Incidents.find(c, id: incidentID) else {
                throw MonitoringError.notFound("No incident with id \(incidentID).")
            }
            guard incident.status == "open" else {
                throw MonitoringError.conflict(code: "incident_closed", message: "Incident \(incidentID) is already closed.")
            }
            let now = Time.now()
            if try Incidents.acknowledge(c, id: incidentID, by: email, userID: userID, at: now) {
                try Incidents.addTimeline(c, incidentID: incidentID, at: now, event: TimelineEvent.acknowledged, detail: email)
            }
            return try Incidents.find(c, id: incidentID)!
        }
    }
}
