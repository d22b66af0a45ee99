#if canImport(Glibc)
import Glibc
#endif
import Testing
import Store

/// A one-off measurement, not an assertion: runs only with STORE_BENCH=1, e.g.
/// `STORE_BENCH=1 swift test -c release --filter BenchTests`.
@Suite struct BenchTests {
    private static func nanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    @Test(.enabled(if: getenv("STORE_BENCH") != nil))
    func primaryKeyRead() throws {
        let dir = TempDir()
        let db = try Database(path: dir.file("bench.db"))
        try db.write { c throws in
            for i in 0..<1000 {
                _ = try Users.insert(c, email: "bench\(i)@example.com", name: "Bench \(i)", role: "readonly",
                                     passwordHash: "scrypt$0123456789abcdef", now: 1)
            }
        }
        let n = 200_000
        var found = 0
        // Cached statement, inside one read transaction.
        var t0 = Self.nanos()
        try db.read { c throws in
            for i in 0..<n where try Users.find(c, id: Int64(i % 1000 + 1)) != nil { found += 1 }
        }
        let inTxn = Double(Self.nanos() - t0) / Double(n)
        // One `db.read` per lookup: pool borrow + BEGIN + query + COMMIT.
        let m = 100_000
        t0 = Self.nanos()
        for i in 0..<m where try db.read({ try Users.find($0, id: Int64(i % 1000 + 1)) }) != nil { found += 1 }
        let perRead = Double(Self.nanos() - t0) / Double(m)
        // Token lookup by hash with the JOIN (the per-request auth query).
        let hash = [UInt8](repeating: 7, count: 32)
        try db.write { c throws in
            _ = try APITokens.insert(c, userID: 1, name: "b", scope: "read", hash: hash, now: 1, expiresAt: nil)
        }
        t0 = Self.nanos()
        for _ in 0..<m where try db.read({ try APITokens.findByHash($0, hash: hash) }) != nil { found += 1 }
        let perAuth = Double(Self.nanos() - t0) / Double(m)
        #expect(found == n + 2 * m)
        print("BENCH Users.find(id:) in one read txn: \(Int(inTxn)) ns/read; "
            + "db.read { Users.find }: \(Int(perRead)) ns/call; db.read { APITokens.findByHash }: \(Int(perAuth)) ns/call")
    }
}
