import Testing
@testable import HTTP

/// The access log's pure parts: milliseconds with three decimals, and the
/// routes whose parameter is a secret.
@Suite struct AccessLogBufferTests {
    @Test func millisecondsHaveThreeDecimals() {
        #expect(AccessLogBuffer.milliseconds(0.0123456) == "12.346")
        #expect(AccessLogBuffer.milliseconds(0.001) == "1.000")
        #expect(AccessLogBuffer.milliseconds(0.00001) == "0.010")
        #expect(AccessLogBuffer.milliseconds(0.0001234) == "0.123")
        #expect(AccessLogBuffer.milliseconds(2.5) == "2500.000")
    }

    @Test func routesWithACredentialHideIt() {
        #expect(AccessLogBuffer.hidesSecret("/ping/{key}"))
        #expect(AccessLogBuffer.hidesSecret("/ping/{key}/{suffix}"))
        #expect(AccessLogBuffer.hidesSecret("/ack/{token}"))
        #expect(!AccessLogBuffer.hidesSecret("/api/monitors/{id}"))
        #expect(!AccessLogBuffer.hidesSecret("/api/me"))
    }
}
