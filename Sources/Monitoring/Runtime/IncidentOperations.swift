import Core
import Crypto
import Store

extension MonitoringService {
    /// Records who acknowledged an open incident (first one wins) and adds it
    /// to the timeline. Reminders and escalation check `acknowledged_at`;
    /// the event sink acknowledges the alert on paging services.
    public func acknowledge(incidentID: Int64, by email: String, userID: Int64) throws -> IncidentRecord {
        try database.write { c in try acknowledge(incidentID: incidentID, by: email, userID: userID, on: c) }
    }

    private func acknowledge(incidentID: Int64, by who: String, userID: Int64?, on c: Connection) throws -> IncidentRecord {
        guard let incident = try Incidents.find(c, id: incidentID) else {
            throw MonitoringError.notFound("No incident with id \(incidentID).")
        }
        guard incident.status == "open" else {
            throw MonitoringError.conflict(code: "incident_closed", message: "Incident \(incidentID) is already closed.")
        }
        let now = Time.now()
        let first = try Incidents.acknowledge(c, id: incidentID, by: who, userID: userID, at: now)
        let acknowledged = try Incidents.find(c, id: incidentID)!
        if first {
            try Incidents.addTimeline(c, incidentID: incidentID, at: now, event: TimelineEvent.acknowledged, detail: who)
            // In the same transaction: the paging services' acknowledge
            // rows exist exactly when the acknowledgement does.
            try recorder.sink?.incidentAcknowledged(acknowledged, by: who, on: c)
        }
        return acknowledged
    }

    /// What an acknowledge link (SPEC §10) leads to, if it still works: the
    /// incident and the channel the link was sent to.
    public struct AckLinkTarget: Sendable {
        public var incident: IncidentRecord
        public var monitorName: String
        public var channelName: String
    }

    /// The incident a link token leads to; nil when the token is unknown,
    /// expired or used up, or the incident has closed (all answer 404: the
    /// page says nothing about which). Reads only: a link scanner's GET
    /// changes nothing.
    public func ackLinkTarget(token: String, now: Int64 = Time.now()) throws -> AckLinkTarget? {
        try database.read { c in try usableLink(token, now: now, on: c, lock: false).map { $0.1 } }
    }

    /// Acknowledges the link's incident as `link: <channel name>` and uses
    /// the link up, in one transaction; nil when the link no longer works.
    /// An incident someone acknowledged already stays theirs.
    public func acknowledge(linkToken token: String, now: Int64 = Time.now()) throws -> AckLinkTarget? {
        try database.write { c in
            guard let (link, target) = try usableLink(token, now: now, on: c, lock: true),
                  try AckLinks.markUsed(c, id: link.id, at: now) else { return nil }
            let incident = try acknowledge(incidentID: link.incidentID, by: "link: " + link.channelName, userID: nil, on: c)
            return AckLinkTarget(incident: incident, monitorName: target.monitorName, channelName: target.channelName)
        }
    }

    private func usableLink(_ token: String, now: Int64, on c: Connection, lock: Bool) throws -> (AckLinkRecord, AckLinkTarget)? {
        guard let hash = LinkToken.hash(token),
              let link = try AckLinks.find(c, tokenHash: hash, lock: lock),
              link.usedAt == nil, link.expiresAt > now,
              let incident = try Incidents.find(c, id: link.incidentID), incident.status == "open" else { return nil }
        let name = try Monitors.find(c, id: incident.monitorID)?.name ?? "monitor \(incident.monitorID)"
        return (link, AckLinkTarget(incident: incident, monitorName: name, channelName: link.channelName))
    }
}
