import Store
import Synchronization

/// Every agent in memory: who it is (by token hash, so authenticating an
/// agent costs no query and works on an event loop), and whether it is
/// online. The quorum asks `onlineViews()` for every result, so this is the
/// fast, authoritative view of liveness; the `agents` table follows it
/// (see `AgentService.syncStatus`).
public final class AgentRoster: Sendable {
    public enum Status: String, Sendable {
        case pending, online, offline
    }

    public struct Agent: Sendable, Equatable {
        public var id: Int64
        public var name: String
        public var status: Status
        /// When `status` last changed (Unix seconds).
        public var statusSince: Int64
        /// Last contact (Unix milliseconds).
        public var lastSeenMs: Int64?
        public var version: String?
        public var address: String?
        /// When contact was last written to the database (ms): at most once a
        /// poll interval, so a polling agent does not cost a write per request.
        var persistedMs: Int64 = 0
        /// When it last went offline (Unix seconds): what it saw before then
        /// no longer counts for quorum (see `MonitorPolicy.countedSince`).
        var forgetBefore: Int64?
        /// Silence is counted from here at the earliest (ms): the hub's own
        /// start, so agents are not blamed for the time the hub was down.
        var silenceFromMs: Int64 = 0
    }

    private struct State {
        var byID: [Int64: Agent] = [:]
        var byHash: [[UInt8]: Int64] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public func load(_ records: [AgentRecord]) {
        state.withLock { s in
            s = State()
            for r in records { Self.insert(r, into: &s) }
        }
    }

    public func add(_ record: AgentRecord) {
        state.withLock { Self.insert(record, into: &$0) }
    }

    private static func insert(_ r: AgentRecord, into s: inout State) {
        s.byID[r.id] = Agent(id: r.id, name: r.name, status: Status(rawValue: r.status) ?? .pending,
                             statusSince: r.statusSince, lastSeenMs: r.lastSeenAt.map { $0 * 1000 },
                             version: r.version, address: r.address, persistedMs: (r.lastSeenAt ?? 0) * 1000,
                             // After a restart the exact offline moment is unknown; its
                             // status change bounds it (later, so never too lenient).
                             forgetBefore: r.status == "pending" ? nil : r.statusSince)
        s.byHash[r.tokenHash] = r.id
    }

    /// Brings the roster up to the database's view, written by other hubs
    /// too: new agents are added and deleted ones removed; a contact stored
    /// later than the roster's is taken; a status whose change is stored as
    /// newer than the roster's (another hub saw the agent come back, or the
    /// leader saw it go silent) is adopted. What only this hub knows (a
    /// contact not written yet) is kept.
    public func merge(_ records: [AgentRecord]) {
        state.withLock { s in
            let ids = Set(records.map(\.id))
            for id in s.byID.keys where !ids.contains(id) { s.byID[id] = nil }
            s.byHash = s.byHash.filter { ids.contains($0.value) }
            for r in records {
                guard var a = s.byID[r.id] else {
                    Self.insert(r, into: &s)
                    continue
                }
                if let seen = r.lastSeenAt.map({ $0 * 1000 }), seen > (a.lastSeenMs ?? 0) {
                    a.lastSeenMs = seen
                    a.persistedMs = max(a.persistedMs, seen)
                }
                // `pending` is only ever the first status: a stored one of the
                // same second is still newer (an agent that called another hub
                // the second it was created here).
                if r.statusSince > a.statusSince || (r.statusSince == a.statusSince && a.status == .pending),
                   let status = Status(rawValue: r.status), status != a.status {
                    a.status = status
                    a.statusSince = r.statusSince
                    if status == .offline { a.forgetBefore = r.statusSince }
                }
                s.byID[r.id] = a
                s.byHash[r.tokenHash] = r.id
            }
        }
    }

    /// Forgets the agent: its token stops working at once.
    public func remove(id: Int64) {
        state.withLock { s in
            s.byID[id] = nil
            s.byHash = s.byHash.filter { $0.value != id }
        }
    }

    public func agent(tokenHash: [UInt8]) -> Agent? {
        state.withLock { s in s.byHash[tokenHash].flatMap { s.byID[$0] } }
    }

    public func agent(id: Int64) -> Agent? { state.withLock { $0.byID[id] } }

    public func all() -> [Agent] { state.withLock { $0.byID.values.sorted { $0.id < $1.id } } }

    /// The online agents' names (sorted) and, for those that were ever
    /// offline, when they last went offline: the quorum's inputs.
    public func onlineViews() -> (names: [String], countedSince: [String: Int64]) {
        state.withLock { s in
            var names: [String] = []
            var since: [String: Int64] = [:]
            for a in s.byID.values where a.status == .online {
                names.append(a.name)
                if let t = a.forgetBefore { since[a.name] = t }
            }
            return (names.sorted(), since)
        }
    }

    /// The hub (re)started at `nowMs`: every agent gets a full timeout from
    /// now before it counts as silent.
    public func startCountingSilence(nowMs: Int64) {
        state.withLock { s in
            for id in s.byID.keys { s.byID[id]?.silenceFromMs = nowMs }
        }
    }

    /// Counts by status, for /metrics.
    public func counts() -> [Status: Int] {
        state.withLock { s in
            var out: [Status: Int] = [.pending: 0, .online: 0, .offline: 0]
            for a in s.byID.values { out[a.status, default: 0] += 1 }
            return out
        }
    }

    /// Names of the online agents, sorted (a stable order for quorum causes).
    public func onlineNames() -> [String] {
        state.withLock { s in s.byID.values.filter { $0.status == .online }.map(\.name).sorted() }
    }

    /// What a contact changed.
    public struct Contact: Sendable, Equatable {
        public var agent: Agent
        /// It was pending or offline and is online now.
        public var cameOnline: Bool
        /// The database should be told (status changed, or the stored
        /// last-seen time is a poll interval old).
        public var persist: Bool
    }

    /// Records contact at `nowMs`; nil when the agent no longer exists.
    public func contact(id: Int64, nowMs: Int64, version: String?, address: String?, persistEveryMs: Int64) -> Contact? {
        state.withLock { s -> Contact? in
            guard var a = s.byID[id] else { return nil }
            let cameOnline = a.status != .online
            if cameOnline {
                a.status = .online
                a.statusSince = nowMs / 1000
            }
            a.lastSeenMs = nowMs
            if let version { a.version = version }
            if let address { a.address = address }
            let persist = cameOnline || nowMs - a.persistedMs >= persistEveryMs
            if persist { a.persistedMs = nowMs }
            s.byID[id] = a
            return Contact(agent: a, cameOnline: cameOnline, persist: persist)
        }
    }

    /// Marks offline every online agent not heard from for `timeoutMs` and
    /// not holding a long poll open now (`connected`: a parked poll is
    /// contact in progress). Returns the agents that went offline.
    public func sweep(nowMs: Int64, timeoutMs: Int64, connected: Set<Int64> = []) -> [Agent] {
        state.withLock { s -> [Agent] in
            var gone: [Agent] = []
            for (id, var a) in s.byID where a.status == .online && !connected.contains(id) {
                guard nowMs - max(a.lastSeenMs ?? 0, a.silenceFromMs) >= timeoutMs else { continue }
                a.status = .offline
                a.statusSince = nowMs / 1000
                a.forgetBefore = nowMs / 1000
                s.byID[id] = a
                gone.append(a)
            }
            return gone.sorted { $0.id < $1.id }
        }
    }
}
