import Core
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Moves the WAL into the database file in the background. The writer turns
/// SQLite's automatic checkpoint off, because it runs inside whichever commit
/// crosses the threshold and stalls every write queued behind it (measured:
/// ping throughput halving as the WAL filled). Here a PASSIVE checkpoint runs
/// every `intervalMillis` (`WALCheckpoints`) on its own connection: it never
/// waits for readers or the writer, and copies what it can.
///
/// Copying is not enough to keep the WAL short. SQLite starts the WAL over
/// only when a write transaction begins after every frame was copied, and a
/// pass copies the frames that existed when it began. While writes never
/// pause (a flood of pings, each awaited, so the writer never gathers), every
/// pass ends behind and the file grows for as long as the flood lasts
/// (measured: 1.2 GB in 12 s of pings beside an 84 MB database; "checkpoint
/// starvation" in https://www.sqlite.org/wal.html). So a pass that finds the
/// WAL longer than `restartFrames` marks a restart due, and the writer,
/// between two of its transactions, copies the rest itself (`finishRestart`).
/// Nothing can be added meanwhile, so that copy ends level and the next
/// write starts the WAL over. What it copies is what came in since the
/// background pass began, and it never waits for anyone.
final class Checkpointer: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let restartDue = Atomic<Bool>(false)
    private let lastPages = Atomic<Int>(0)
    private let thread = Mutex<ThreadHandle?>(nil)

    init(path: String, busyTimeoutMillis: Int, policy: WALCheckpoints = .standard) throws(StoreError) {
        // The connection is opened on the thread that uses it, so it never
        // crosses threads; whether that worked comes back through `opened`.
        let opened = Handoff<StoreError?>()
        let ready = Semaphore()
        let handle = startThread(name: "db-checkpoint") { [self] in
            let c: Connection
            do throws(StoreError) {
                c = try Connection(path: path, role: .checkpointer, busyTimeoutMillis: busyTimeoutMillis)
                opened.put(nil)
                ready.post()
            } catch {
                opened.put(error)
                ready.post()
                return
            }
            while !stopping.load(ordering: .sequentiallyConsistent) {
                var pause = timespec(tv_sec: policy.intervalMillis / 1000, tv_nsec: (policy.intervalMillis % 1000) * 1_000_000)
                nanosleep(&pause, nil)
                do {
                    let pass = try Self.passive(c)
                    lastPages.store(Int(max(0, pass.log)), ordering: .relaxed)
                    // A pass reports what it saw when it began: "all copied"
                    // says nothing of the frames the writer added meanwhile.
                    if pass.log >= policy.restartFrames { restartDue.store(true, ordering: .releasing) }
                } catch {
                    Log.shared.warn("WAL checkpoint failed", ["error": "\(error)"])
                }
            }
            // A last full pass so a clean stop leaves a small WAL.
            try? c.executeScript("PRAGMA wal_checkpoint(PASSIVE)")
            c.close()
        }
        ready.wait()
        if let failure = opened.take() ?? nil {
            handle.join()
            throw failure
        }
        thread.withLock { $0 = handle }
    }

    /// Pages in the WAL when the last background pass began (for /metrics).
    var walPages: Int { lastPages.load(ordering: .relaxed) }

    /// Whether a restart is due; clears it (the writer takes it once).
    func takeRestartDue() -> Bool {
        restartDue.load(ordering: .acquiring) && restartDue.exchange(false, ordering: .acquiringAndReleasing)
    }

    /// The writer's part of a restart: a PASSIVE checkpoint on the writer's
    /// own connection, outside any transaction. PASSIVE, so it never waits:
    /// if the background pass holds the checkpoint lock, or a reader's
    /// snapshot keeps frames from being copied, the WAL simply restarts after
    /// a later pass.
    static func finishRestart(_ writer: Connection) throws(StoreError) {
        _ = try passive(writer)
    }

    /// One PASSIVE checkpoint: frames in the WAL and frames copied so far.
    private static func passive(_ c: Connection) throws(StoreError) -> (log: Int64, copied: Int64) {
        guard let row = try c.queryOne("PRAGMA wal_checkpoint(PASSIVE)") else { return (0, 0) }
        return (try row.int("log"), try row.int("checkpointed"))
    }

    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        let handle = thread.withLock { h in let copy = h; h = nil; return copy }
        handle?.join()
    }
}
