@testable import Store
import Testing
import TestSupport

/// libpq is loaded on the first PostgreSQL connection (Sources/CLibPQ), so a
/// hub on SQLite runs without it. Where it cannot be loaded, the error must
/// tell an operator what to install.
struct LibPQLoaderTests {
    @Test func aMissingLibraryIsNamedWithItsPackage() {
        let message = failure(opening: "libpq-absent.so.5")
        #expect(message.contains("libpq-absent.so.5"))
        #expect(message.contains("cannot open shared object file"))
        #expect(message.contains("apt-get install libpq5"))
    }

    /// A library that is not libpq (or a libpq older than 14, without the
    /// pipeline functions) is refused as a whole, naming what it lacks.
    @Test func aLibraryWithoutLibpqsFunctionsIsRefused() {
        let message = failure(opening: "libsqlite3.so.0")
        #expect(message.contains("libsqlite3.so.0 has no PQconnectdb"))
        #expect(message.contains("libpq 14 or later"))
    }

    @Test(.enabled(if: TestEngine.all.contains(.postgres))) func theSystemLibraryHasEveryFunction() throws {
        LibPQ.close(try LibPQ.open(library: LibPQ.library))
    }

    /// The message of opening `library`, which must fail as a missing
    /// client library (the CLI prints it alone and does not retry).
    private func failure(opening library: String) -> String {
        do {
            LibPQ.close(try LibPQ.open(library: library))
            Issue.record("\(library) opened as libpq")
            return ""
        } catch {
            #expect(error.isClientLibraryMissing && !error.isUnreachable)
            return error.message
        }
    }
}
