#if canImport(Glibc)
import Glibc
#endif
import CSQLite

/// A fixed set of connections, each lent to one thread at a time; borrowing
/// blocks while all are out. The readers are a pool of N, the writer a pool
/// of one (which is what serialises writes).
///
/// `@unchecked Sendable` because the pool moves non-Sendable `Connection`s
/// between threads. That is sound because of the invariant kept here: a
/// connection is in `idle` (touched only under `mutex`) or lent to exactly one
/// borrower, never both. `Synchronization.Mutex` was the first choice, but it
/// has no condition variable, and its `inout sending` value cannot be lent to
/// a caller's non-Sendable closure; so a pthread mutex + condition pair
/// (heap-allocated: they must never move) does the locking and waiting.
final class ConnectionPool: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let cond: UnsafeMutablePointer<pthread_cond_t>
    private var idle: [Connection]
    private var total: Int
    private var closed = false
    /// Threads currently holding a connection, to turn a same-thread
    /// re-entrant borrow of a single-connection pool (a `write` inside a
    /// `write`) into an error instead of a silent deadlock.
    private var holders: [pthread_t] = []
    private let name: String
    /// Borrowers are served in arrival order (a ticket each). A plain
    /// condition variable lets the thread that just gave a connection back
    /// take it again before a woken waiter runs: the retention job, writing
    /// transaction after transaction, kept a check result waiting for 6.5 s
    /// behind 20 ms transactions (bench/storage.sh). With tickets a borrower
    /// waits for at most the borrows that arrived before it.
    private var nextTicket: UInt64 = 0
    private var serving: UInt64 = 0

    init(_ connections: [Connection], name: String) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        cond = .allocate(capacity: 1)
        cond.initialize(to: pthread_cond_t())
        pthread_cond_init(cond, nil)
        idle = connections
        total = connections.count
        self.name = name
    }

    deinit {
        close()
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    /// Borrowers waiting for a connection now (tickets not yet served).
    var waiting: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return Int(nextTicket &- serving)
    }

    /// Runs `body` with a borrowed connection and always gives it back.
    func with<T>(_ body: (Connection) throws -> T) throws -> T {
        let c = try checkout()
        defer { checkin(c) }
        return try body(c)
    }

    private func checkout() throws(StoreError) -> Connection {
        let me = pthread_self()
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if total == 1 && holders.contains(where: { pthread_equal($0, me) != 0 }) {
            throw StoreError.misuse("\(name) borrowed again by the thread that holds it (nested \(name) call); "
                + "use the connection you were given")
        }
        let ticket = nextTicket
        nextTicket &+= 1
        // Loop: pthread_cond_wait may wake spuriously, and a wake-up may be
        // for the borrower ahead of this one.
        while (idle.isEmpty || ticket != serving) && !closed { pthread_cond_wait(cond, mutex) }
        guard !closed else { throw StoreError.misuse("database is closed") }
        serving &+= 1
        holders.append(me)
        let c = idle.removeLast()
        // Another idle connection (a pool of readers): the next ticket may take it now.
        if !idle.isEmpty && nextTicket != serving { pthread_cond_broadcast(cond) }
        return c
    }

    private func checkin(_ c: Connection) {
        let me = pthread_self()
        pthread_mutex_lock(mutex)
        idle.append(c)
        if let i = holders.firstIndex(where: { pthread_equal($0, me) != 0 }) { holders.remove(at: i) }
        pthread_mutex_unlock(mutex)
        // Broadcast: borrowers and a closing thread may both be waiting.
        pthread_cond_broadcast(cond)
    }

    /// Stops lending, waits for every borrowed connection to come back, then
    /// closes them all. Idempotent. Calling it while holding a connection of
    /// this pool would wait forever.
    func close() {
        pthread_mutex_lock(mutex)
        closed = true
        pthread_cond_broadcast(cond)   // waiting borrowers fail fast
        while idle.count < total { pthread_cond_wait(cond, mutex) }
        let all = idle
        idle = []
        total = 0
        pthread_mutex_unlock(mutex)
        for c in all { c.close() }
    }
}
