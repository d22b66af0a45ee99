import Core
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Moves the WAL into the database file in the background. The writer turns
/// SQLite's automatic checkpoint off, because it runs inside whichever commit
/// crosses the threshold and stalls every write queued behind it (measured:
/// ping throughput halving as the WAL filled). Here a PASSIVE checkpoint runs
/// every 200 ms on its own connection: it never waits for readers or the
/// writer, and copies what it can.
final class Checkpointer: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let thread = Mutex<ThreadHandle?>(nil)

    init(path: String, busyTimeoutMillis: Int) throws(StoreError) {
        let connection = try Connection(path: path, role: .checkpointer, busyTimeoutMillis: busyTimeoutMillis)
        let box = ConnectionBox(connection)
        let handle = startThread(name: "db-checkpoint") { [self] in
            let c = box.connection
            while !stopping.load(ordering: .sequentiallyConsistent) {
                var pause = timespec(tv_sec: 0, tv_nsec: 200_000_000)
                nanosleep(&pause, nil)
                do {
                    try c.executeScript("PRAGMA wal_checkpoint(PASSIVE)")
                } catch {
                    Log.shared.warn("WAL checkpoint failed", ["error": "\(error)"])
                }
            }
            // A last full pass so a clean stop leaves a small WAL.
            try? c.executeScript("PRAGMA wal_checkpoint(PASSIVE)")
            c.close()
        }
        thread.withLock { $0 = handle }
    }

    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        let handle = thread.withLock { h in let copy = h; h = nil; return copy }
        handle?.join()
    }
}

/// Hands the checkpointer's connection to its thread; only that thread uses it.
private final class ConnectionBox: @unchecked Sendable {
    let connection: Connection
    init(_ connection: Connection) { self.connection = connection }
}
