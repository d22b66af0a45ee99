import Core
import Store

extension MonitoringService {
    /// Records who acknowledged an open incident (first one wins) and adds it
    /// to the timeline. Reminders and escalation check `acknowledged_at`;
    /// the event sink acknowledges the alert on paging services.
    public func acknowledge(incidentID: Int64, by email: String, userID: Int64) throws -> IncidentRecord {
        try database.write { c in
            guard let incident = try Incidents.find(c, id: incidentID) else {
                throw MonitoringError.notFound("No incident with id \(incidentID).")
            }
            guard incident.status == "open" else {
                throw MonitoringError.conflict(code: "incident_closed", message: "Incident \(incidentID) is already closed.")
            }
            let now = Time.now()
            let first = try Incidents.acknowledge(c, id: incidentID, by: email, userID: userID, at: now)
            let acknowledged = try Incidents.find(c, id: incidentID)!
            if first {
                try Incidents.addTimeline(c, incidentID: incidentID, at: now, event: TimelineEvent.acknowledged, detail: email)
                // In the same transaction: the paging services' acknowledge
                // rows exist exactly when the acknowledgement does.
                try recorder.sink?.incidentAcknowledged(acknowledged, by: email, on: c)
            }
            return acknowledged
        }
    }
}
