import Store
import Core
#if canImport(Glibc)
import Glibc
#endif

/// The database engines a test runs on. Store, domain and end-to-end tests
/// take it as an argument (`@Test(arguments: TestEngine.all)`), so each runs
/// on SQLite and on the real PostgreSQL server of `PostgresServer`.
/// `PINGTXT_TEST_POSTGRES=off` runs SQLite only (a machine without the
/// server); without it, a missing server fails the PostgreSQL cases with a
/// message saying what to install.
public enum TestEngine: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    public static var all: [TestEngine] {
        if let v = getenv("PINGTXT_TEST_POSTGRES"), String(cString: v) == "off" { return [.sqlite] }
        return allCases
    }

    public var description: String { rawValue }

    /// A new, empty database's URL: a file in `directory`, or a fresh schema
    /// on the test server.
    public func url(in directory: String, name: String = "hub.db") throws -> String {
        switch self {
        case .sqlite: return "sqlite:" + directory + "/" + name
        case .postgres: return try PostgresServer.shared.get().database()
        }
    }

    /// Opens (and migrates) a new database in `directory` or on the server.
    public func open(in directory: String, name: String = "hub.db", readers: Int = 2,
                     migrations: [Migration] = Migrations.all) throws -> Database {
        try Database(url: DatabaseURL(url(in: directory, name: name)), readers: readers, migrations: migrations)
    }
}
