import Auth
import Core
import HTTP
import Notify
import Store

/// `/api/mobile` (SPEC §6 "Mobile endpoints"): what the phone app calls with
/// its `pma_` access token. A phone is bound to the OAuth sign-in whose token
/// enrolled it, so revoking that sign-in removes the phone (see
/// `OAuthStore.revokeSignIn`); that is why the device, Live Activity and
/// sign-in approval endpoints refuse API tokens and browser sessions, which
/// have no sign-in.
struct MobileRoutes {
    let access: Access
    let devices: MobileDeviceService
    let settings: APISettings
    /// Sign-in approvals the phone answers (SPEC §11, `MobileRoutes+LoginApprovals`).
    let approvals: LoginApprovalService
    /// A refused approval counts as a failed second factor of the account.
    let limiter: LoginRateLimiter
    /// The push settings, and told when a phone reports a Live Activity
    /// token, so it gets the current outage at once.
    let notify: NotifyService
    var clock: @Sendable () -> Int64 = { Time.now() }

    func register(_ r: inout RouteTable) {
        r.get("/api/mobile/config", access.rule(.read, config))
        r.post("/api/mobile/devices", access.signIn(.read, enroll))
        r.get("/api/mobile/devices", access.signIn(.read, list))
        r.delete("/api/mobile/devices/{id}", access.signIn(.read, delete))
        r.put("/api/mobile/live-activity/start-token", access.signIn(.read, setStartToken))
        r.put("/api/mobile/live-activity/token", access.signIn(.read, setActivityToken))
        r.delete("/api/mobile/live-activity/token", access.signIn(.read, endActivity))
        r.get("/api/mobile/login-approvals", access.signIn(.read, pendingApprovals))
        r.post("/api/mobile/login-approvals/{id}", access.signIn(.read, answerApproval))
    }


    // MARK: config

    /// Works with any read credential: the admin UI may show it too. The
    /// caller's quiet hours come with it (SPEC §10), so the app shows them
    /// without a second call.
    func config(_ req: HTTPRequest, _ p: Principal) throws -> HTTPResponse {
        let push = try pushSettings()
        return .json(.object(JSONObject([
            ("hub_id", .string(push.hubID)), ("hub_name", .string(settings.hubName)), ("relay_epoch", .int(push.relayEpoch)),
            ("push", .object(JSONObject([("enabled", .bool(push.enabled)), ("relay_url", .string(push.relayURL))]))),
            ("scope", .string(p.scope.oauthString)),
            ("user", .object(JSONObject([("email", .string(p.user.email)), ("role", .string(p.role.rawValue))]))),
            ("actions", Self.actions(mayWrite: p.scope.allows(.write))),
            ("quiet_hours", try notify.quietHours.get(userID: p.user.id).json),
        ])))
    }

    /// The settings as loaded at start (the permanent `hub_id` is created then).
    func pushSettings() throws -> PushSettings { notify.push.settings }

    /// The notification actions of SPEC §6, so the app need not hard-code
    /// paths: each is a plain API call with the sign-in's token, `{id}` being
    /// the notification's `monitor_id`. They all need write scope;
    /// `allowed` says whether this token has it (a read sign-in should not
    /// offer buttons that would answer 403).
    static func actions(mayWrite: Bool) -> JSON {
        func action(_ title: String, _ path: String, body: JSON) -> JSON {
            .object(JSONObject([("title", .string(title)), ("method", "POST"), ("path", .string(path)), ("body", body),
                                ("scope", "write"), ("allowed", .bool(mayWrite))]))
        }
        return .object(JSONObject([
            ("check_now", action("Check now", "/api/monitors/{id}/check", body: .null)),
            ("mute", action("Mute for 1 hour", "/api/monitors/{id}/mute", body: .object(JSONObject([("minutes", .int(60))])))),
            ("pause", action("Pause monitor", "/api/monitors/{id}/pause", body: .null)),
            // SPEC §10: `{id}` here is the notification's `incident_id`.
            ("acknowledge", action("Acknowledge", "/api/incidents/{id}/acknowledge", body: .null)),
        ]))
    }

    // MARK: devices

    /// New token → `201`; a token already enrolled (here or on an older
    /// sign-in of the same phone) is updated and moved here → `200`.
    func enroll(_ req: HTTPRequest, _ p: Principal, _ signInID: Int64) throws -> HTTPResponse {
        let input = try MobileInput.enrollment(try req.jsonFields())
        let now = clock()
        let record = MobileDeviceRecord(signInID: signInID, userID: p.user.id, platform: input.platform, token: input.token,
                                        name: input.name, appVersion: input.appVersion)
        let (device, created) = try devices.enroll(record, now: now)
        if created {
            Log.shared.info("mobile device enrolled", ["device_id": "\(device.id)", "signin_id": "\(signInID)",
                                                       "platform": device.platform])
        }
        return .json(MobileInput.device(device), status: created ? 201 : 200)
    }

    /// The phones of this sign-in only: another sign-in of the same user is
    /// another app install and manages its own.
    func list(_ req: HTTPRequest, _: Principal, _ signInID: Int64) throws -> HTTPResponse {
        let phones = try devices.devices(signInID: signInID)
        return .json(.object(JSONObject([("items", .array(phones.map(MobileInput.device))), ("next_cursor", .null)])))
    }

    func delete(_ req: HTTPRequest, _: Principal, _ signInID: Int64) throws -> HTTPResponse {
        let id = try req.intParameter("id")
        try devices.delete(id: id, signInID: signInID)
        return .noContent()
    }

    // MARK: Live Activity

    func setStartToken(_ req: HTTPRequest, _: Principal, _ signInID: Int64) throws -> HTTPResponse {
        let f = try req.jsonFields()
        let id = try MobileInput.deviceID(f)
        let token = try MobileInput.pushToken(f, "token")
        let now = clock()
        try devices.setStartToken(deviceID: id, signInID: signInID, token: token, now: now)
        try notify.push.liveActivityReported(deviceID: id)
        return .noContent()
    }

    func setActivityToken(_ req: HTTPRequest, _: Principal, _ signInID: Int64) throws -> HTTPResponse {
        let f = try req.jsonFields()
        let id = try MobileInput.deviceID(f)
        let activity = try MobileInput.activityID(f)
        let token = try MobileInput.pushToken(f, "token")
        let now = clock()
        try devices.setActivity(deviceID: id, signInID: signInID, activityID: activity, token: token, now: now)
        try notify.push.liveActivityReported(deviceID: id)
        return .noContent()
    }

    /// `204` even when `activity_id` is not the one the hub knows (already
    /// ended, or replaced by a newer one): the phone's report is
    /// idempotent and only the named activity is ever cleared.
    func endActivity(_ req: HTTPRequest, _: Principal, _ signInID: Int64) throws -> HTTPResponse {
        let f = try req.jsonFields()
        let id = try MobileInput.deviceID(f)
        let activity = try MobileInput.activityID(f)
        let now = clock()
        try devices.clearActivity(deviceID: id, signInID: signInID, activityID: activity, now: now)
        return .noContent()
    }
}
