import Auth
import Core
import HTTP
import Notify
import Store

/// Invitations (SPEC §15): `POST /api/users` with `"invite": true` and no
/// `password` creates the user without one and mails a one-time link
/// (7 days) to `/login/reset/{token}`, where the first password is set;
/// `GET /api/users` shows `"invited": true` until it is used (or expires).
struct Invitations {
    let links: SignInLinkService
    let notify: NotifyService
    let settings: APISettings

    func invite(_ body: JSONFields, users: UserService) throws -> UserRecord {
        guard notify.sendsMail else {
            throw HTTPError(400, "validation_failed", "Invitations are sent by e-mail: configure [smtp] first.", field: "invite")
        }
        if body.has("password") {
            throw HTTPError(400, "validation_failed", "An invited user sets the password from the link: leave password out.",
                            field: "password")
        }
        let email = try body.requiredString("email")
        let role = Role(rawValue: try body.oneOf("role", ["admin", "readonly"]) ?? "readonly")!
        let user = try users.create(email: email, name: try body.string("name"), role: role, password: nil)
        let token = try links.create(.invitation, userID: user.id)
        notify.sendAccountMail(to: user.email, subject: "You are invited to \(settings.hubName)", body: """
            You have an account on \(settings.hubName) (pingtxt monitoring hub) as \(user.email), role \(user.role).

            Open this link within 7 days to set your password (it works once):
            \(settings.issuer)/login/reset/\(token)
            """)
        return user
    }

    /// No password yet and an invitation that still works.
    func isInvited(_ user: UserRecord) throws -> Bool {
        guard user.passwordHash == nil else { return false }
        return try links.invitedUserIDs().contains(user.id)
    }
}
