import Core
import Crypto

/// The identity an ID token vouches for, after every check passed.
struct SSOIdentity: Sendable, Equatable {
    let subject: String
    let email: String
    let name: String
}

/// A sign-in the hub refuses. `status` is always below 500 (SPEC §9: the
/// person sees the hub's own page); `message` is shown to them and logged.
struct SSORefusal: Error, Sendable {
    let status: Int
    let reason: String
    let message: String

    init(_ status: Int, _ reason: String, _ message: String) {
        self.status = status
        self.reason = reason
        self.message = message
    }
}

/// OpenID Connect Core §3.1.3.7 checks on a verified ID token, plus the
/// hub's own: a verified email in an allowed domain.
enum IDTokenChecks {
    static let clockSkew: Int64 = 60

    static func check(_ claims: JSONObject, issuer: String, clientID: String, nonce: String,
                      allowedDomains: [String], now: Int64) throws(SSORefusal) -> SSOIdentity {
        func bad(_ why: String) -> SSORefusal {
            SSORefusal(400, "invalid_id_token", "The sign-in provider's answer was not valid (\(why)). Try again or ask an administrator.")
        }
        guard claims["iss"]?.stringValue == issuer else { throw bad("wrong issuer") }
        let audiences: [String]
        if let single = claims["aud"]?.stringValue {
            audiences = [single]
        } else if let list = claims["aud"]?.arrayValue?.compactMap(\.stringValue), !list.isEmpty {
            audiences = list
        } else {
            throw bad("no audience")
        }
        guard audiences.contains(clientID) else { throw bad("issued for another application") }
        // azp must name us when present, and must be present when the token
        // is meant for several audiences (Core §3.1.3.7 items 4–5).
        if let azp = claims["azp"] {
            guard azp.stringValue == clientID else { throw bad("authorized party is another application") }
        } else if audiences.count > 1 {
            throw bad("several audiences and no authorized party")
        }
        guard let exp = claims["exp"]?.intValue else { throw bad("no expiry") }
        guard exp + clockSkew > now else {
            throw SSORefusal(400, "expired", "The sign-in took too long or the provider's clock is off (the token has expired). Try again.")
        }
        guard let iat = claims["iat"]?.intValue, iat <= now + clockSkew else { throw bad("issued in the future") }
        guard let sent = claims["nonce"]?.stringValue, WebLayer.tokensMatch(sent, nonce) else { throw bad("nonce mismatch") }
        guard let sub = claims["sub"]?.stringValue, !sub.isEmpty else { throw bad("no subject") }
        guard let rawEmail = claims["email"]?.stringValue, !rawEmail.isEmpty else {
            throw SSORefusal(403, "no_email", "The provider did not share an email address. Allow the email scope for this application.")
        }
        let email = rawEmail.lowercased()
        // Only a provider-verified address may link to an existing account:
        // anyone can type someone else's address into a profile.
        guard claims["email_verified"]?.boolValue == true else {
            throw SSORefusal(403, "email_unverified", "Your email address \(email) is not verified with the sign-in provider.")
        }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw bad("malformed email") }
        if !allowedDomains.isEmpty && !allowedDomains.contains(String(parts[1])) {
            throw SSORefusal(403, "domain_not_allowed", "Accounts of the domain \(parts[1]) may not sign in to this hub.")
        }
        // The name only seeds a new user's display name: drop what the
        // hub's own name rules would refuse instead of failing the sign-in.
        var name = String.UnicodeScalarView()
        name.append(contentsOf: (claims["name"]?.stringValue ?? "").unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
        return SSOIdentity(subject: sub, email: email, name: String(String(name).prefix(200)))
    }
}
