import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `[mobile] max_devices_per_user` (SPEC §10) through the binary: enrolling
/// one more phone than the limit succeeds and removes the user's phone that
/// was seen least recently, whichever sign-in it is on; updating a known
/// phone is not one more.
@Suite struct PhonesPerUserTests {
    let mobile = MobileAPITests()

    func ids(_ hub: HubProcess, _ token: String) throws -> [Int64] {
        try mobile.devices(hub, token).compactMap { $0["id"]?.intValue }
    }

    @Test(arguments: TestEngine.all) func oneMoreRemovesTheLeastRecentlySeen(engine: TestEngine) throws {
        let hub = try HubProcess(environment: ["PINGTXT_MOBILE_MAX_DEVICES_PER_USER": "2"], engine: engine)
        let a = try mobile.signIn(hub), b = try mobile.signIn(hub), c = try mobile.signIn(hub)
        _ = try expectJSON(try mobile.enroll(hub, a, push: "phone-a"), 201)
        sleep(1)
        _ = try expectJSON(try mobile.enroll(hub, b, push: "phone-b"), 201)
        sleep(1)
        // Phone A reports again (the app enrolls at every start): it is seen now, B is the stalest.
        _ = try expectJSON(try mobile.enroll(hub, a, push: "phone-a"), 200)
        #expect(try ids(hub, a).count == 1 && ids(hub, b).count == 1, "an update is not one more phone")
        sleep(1)
        let third = try expectJSON(try mobile.enroll(hub, c, push: "phone-c"), 201)
        #expect(try ids(hub, c) == [try #require(third["id"]?.intValue)])
        #expect(try ids(hub, b).isEmpty, "the phone seen least recently is gone")
        #expect(try ids(hub, a).count == 1)
        #expect(hub.waitForLog { $0.contains("over max_devices_per_user") })
    }

    @Test func theLimitIsPerUser() throws {
        let hub = try HubProcess(environment: ["PINGTXT_MOBILE_MAX_DEVICES_PER_USER": "1"])
        try Pages.addViewer(hub)
        let admin = try mobile.signIn(hub)
        let viewer = try mobile.signIn(hub, email: "viewer@example.com", scope: .read)
        _ = try expectJSON(try mobile.enroll(hub, admin, push: "admin-phone"), 201)
        _ = try expectJSON(try mobile.enroll(hub, viewer, push: "viewer-phone"), 201)
        #expect(try ids(hub, admin).count == 1 && ids(hub, viewer).count == 1, "another user's phone does not count")
        let second = try expectJSON(try mobile.enroll(hub, admin, push: "admin-phone-2"), 201)
        #expect(try ids(hub, admin) == [try #require(second["id"]?.intValue)] && ids(hub, viewer).count == 1)
    }

    @Test func theDefaultIsTenAndTheKeyIsChecked() throws {
        let hub = try HubProcess()
        #expect(try hub.cli(["check-config"]).status == .exited(0))
        let refused = try Sandbox(environment: ["PINGTXT_MOBILE_MAX_DEVICES_PER_USER": "0"]).cli(["check-config"])
        #expect(refused.status == .exited(1) && refused.stderr.contains("MAX_DEVICES_PER_USER"), "\(refused.stderr)")
        let access = try mobile.signIn(hub)
        for i in 0..<11 { _ = try expectJSON(try mobile.enroll(hub, access, push: "p-\(i)"), 201) }
        #expect(try ids(hub, access).count == 10)
    }
}
