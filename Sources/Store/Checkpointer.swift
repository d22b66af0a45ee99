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
        ready.wait()
        if let failure = opened.take() ?? nil {
            handle.join()
            throw failure
        }
        thread.withLock { $0 = handle }
    }

    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        let handle = thread.withLock { h in let copy = h; h = nil; return copy }
        handle?.join()
    }
}
