import Core
import Store

/// Approving a web sign-in on the phone (SPEC §11): the browser's waiting
/// session starts an approval, the phone answers it with the number the
/// browser shows, and the browser picks the result up. `LoginApprovalRules`
/// decides; this stores, each step in one write transaction.
public final class LoginApprovalService: Sendable {
    /// `[auth] phone_approval`: off, nothing is offered or created.
    public let enabled: Bool
    public let rules: LoginApprovalRules
    private let database: Database

    public init(database: Database, enabled: Bool, clock: @escaping @Sendable () -> Int64 = { Time.now() }) {
        self.database = database
        self.enabled = enabled
        rules = LoginApprovalRules(clock: clock)
    }

    /// Whether the second-factor page offers approving on the phone: the
    /// option is on, the user has TOTP on and a phone on a live sign-in.
    public func isOffered(to user: UserRecord) throws -> Bool {
        guard enabled, user.totpEnabled else { return false }
        return try database.read { c in try !MobileDevices.active(c, userIDs: [user.id]).isEmpty }
    }

    public enum Start: Sendable, Equatable {
        /// `created` false: the session's approval that is still waiting
        /// (posting the form again sends no second push).
        case started(LoginApprovalRecord, created: Bool)
        /// Too many approvals for this account lately: wait that many seconds.
        case tooMany(retryAfter: Int64)
        /// Not offered to this user (see `isOffered`).
        case unavailable
    }

    /// Starts an approval for the waiting session `sessionID` of `user`.
    /// `queue` runs in the same transaction as the insert (the push outbox
    /// rows), so an approval and its notifications exist together or not at all.
    public func start(sessionID: Int64, user: UserRecord, client: String, address: String,
                      queue: (Connection, LoginApprovalRecord) throws -> Void) throws -> Start {
        guard try isOffered(to: user) else { return .unavailable }
        let rules = self.rules
        let now = rules.now
        return try database.write { c in
            if let current = try LoginApprovals.latest(c, sessionID: sessionID), rules.phase(current) == .waiting {
                return .started(current, created: false)
            }
            // Ended approvals matter for a day at most (a late answer's 409, the creation limit).
            try LoginApprovals.deleteExpired(c, before: now - 86_400)
            let recent = try LoginApprovals.createdSince(c, userID: user.id, since: now - LoginApprovalRules.creationWindow)
            if let wait = rules.creationRetryAfter(recent: recent) { return .tooMany(retryAfter: wait) }
            let record = LoginApprovalRecord(id: LoginApprovalRules.newID(), userID: user.id, sessionID: sessionID,
                                             code: LoginApprovalRules.newCode(), client: client, address: address,
                                             createdAt: now, expiresAt: rules.expiry())
            try LoginApprovals.insert(c, record)
            try queue(c, record)
            return .started(record, created: true)
        }
    }

    /// The user's approvals waiting for the phone (the app's "Confirm login" list).
    public func pending(userID: Int64) throws -> [LoginApprovalRecord] {
        let now = rules.now
        return try database.read { c in try LoginApprovals.pending(c, userID: userID, now: now) }
    }

    public enum Answer: Sendable, Equatable {
        case approved(LoginApprovalRecord)
        /// A wrong number or a no: the caller counts a failed second factor.
        case refused(LoginApprovalRecord)
        /// It had already ended (answered, used, expired, or its session is gone).
        case ended
        /// No such approval of this user.
        case notFound
    }

    /// The phone's answer to approval `id` on behalf of `userID`. Another
    /// user's approval is `notFound`, exactly like one that does not exist.
    public func answer(id: String, userID: Int64, code: String?, approve: Bool) throws -> Answer {
        guard LoginApprovalRules.isWellFormedID(id) else { return .notFound }
        let rules = self.rules
        return try database.write { c in
            guard var a = try LoginApprovals.find(c, id: id), a.userID == userID else { return .notFound }
            let verdict = rules.answer(a, code: code, approve: approve)
            let status: String
            switch verdict {
            case .ended: return .ended
            case .approve: status = "approved"
            case .refuse: status = "refused"
            }
            // The compare-and-set re-checks the expiry with the same clock.
            guard try LoginApprovals.decide(c, id: id, to: status, now: rules.now) else { return .ended }
            a.status = status
            return verdict == .approve ? .approved(a) : .refused(a)
        }
    }

    public enum PickUp: Sendable, Equatable {
        /// The session never started one.
        case none
        case waiting(LoginApprovalRecord)
        /// Approved, and now used: sign the browser in.
        case signIn(LoginApprovalRecord)
        case refused(LoginApprovalRecord)
        case expired(LoginApprovalRecord)
    }

    /// What the waiting session's browser sees. An approved approval is
    /// marked used here, once: a second pick-up finds it used.
    public func pickUp(sessionID: Int64) throws -> PickUp {
        let rules = self.rules
        return try database.write { c in
            guard let a = try LoginApprovals.latest(c, sessionID: sessionID) else { return .none }
            switch rules.phase(a) {
            case .waiting: return .waiting(a)
            case .refused: return .refused(a)
            case .expired, .used: return .expired(a)
            case .approved:
                return try LoginApprovals.markUsed(c, id: a.id) ? .signIn(a) : .expired(a)
            }
        }
    }
}
