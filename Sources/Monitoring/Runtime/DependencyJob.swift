import Core
import Store
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Ends the dependency holds that no result ended (SPEC §12: at most two of
/// the child's intervals), e.g. a parent that stopped reporting, or a hold
/// left by a hub that restarted or died. Runs on every hub: each incident
/// is decided in its own transaction under the child monitor's row lock and
/// claimed by a conditional UPDATE, so a hold ends once however many hubs
/// look at it.
public final class DependencyJob: Sendable {
    /// How often holds are looked at; a hold ends at most this late.
    static let period: UInt32 = 5

    private let database: Database
    private let holds: DependencyHolds
    private let stopping = Atomic<Bool>(false)
    private let thread = Mutex<ThreadHandle?>(nil)

    /// `recorder`: the one whose calendar and event sink released alerts use.
    public init(database: Database, recorder: ResultRecorder) {
        self.database = database
        self.holds = recorder.holds
    }

    func start() {
        let handle = startThread(name: "dependencies") { [self] in
            while !stopping.load(ordering: .sequentiallyConsistent) {
                do {
                    _ = try runOnce(now: Time.now())
                } catch {
                    Log.shared.error("dependency job failed", ["error": "\(error)"])
                }
                for _ in 0..<Self.period where !stopping.load(ordering: .sequentiallyConsistent) { sleep(1) }
            }
        }
        thread.withLock { $0 = handle }
    }

    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        let handle = thread.withLock { h in let copy = h; h = nil; return copy }
        handle?.join()
    }

    /// Decides every hold due by `now`; returns how many were looked at.
    @discardableResult
    public func runOnce(now: Int64) throws -> Int {
        let due = try database.read { c in try Dependencies.due(c, now: now) }
        for listed in due {
            try database.write { c in
                // The child's own results take the same lock: a result being
                // recorded finishes first, and the incident is read after it.
                guard try Monitors.findForUpdate(c, id: listed.monitorID) != nil,
                      let incident = try Incidents.find(c, id: listed.id) else { return }
                try holds.decide(incident, now: now, on: c)
            }
        }
        return due.count
    }
}
