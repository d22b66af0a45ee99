import Auth
import Testing

/// `BearerCredentials` reads `Authorization` as the split-lowercase-trim it
/// replaced did: the same token or the same refusal for every header below.
@Suite struct BearerCredentialsTests {
    /// The replaced reading, kept here as the reference.
    static func reference(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingSpaces()
        return token.isEmpty ? nil : token
    }

    @Test(arguments: [
        "Bearer pmk_abc", "bearer pmk_abc", "BEARER pmk_abc", "BeArEr  pmk_abc  ", "Bearer \tpmk_abc\t",
        "Bearer", "Bearer ", "Bearer    ", "Bearer\tpmk_abc", "Basic dXNlcjpwYXNz", "Bearerx pmk_abc", "Beare pmk",
        "  Bearer pmk_abc", "", " ", "Bearer pmk abc", "Bearer pmk_é☃", "Bearer ☃", "Bëarer pmk", "BEARER\u{301} pmk",
        "Bearer pmk_abc\r", "Token pmk_abc",
    ])
    func sameAsTheSplitItReplaced(header: String) {
        #expect(BearerCredentials.token(header) == Self.reference(header))
    }

    @Test func schemeWithoutToken() {
        #expect(BearerCredentials.isBearer("Bearer   "))
        #expect(!BearerCredentials.isBearer("Basic abc"))
        #expect(!BearerCredentials.isBearer("Bearer"))
    }
}
