import Auth
import Core
import Store

/// The API's JSON shapes, in the field order the spec lists them.
enum Representation {
    static func user(_ u: UserRecord) -> JSON {
        ["id": .int(u.id), "email": .string(u.email), "name": .string(u.name), "role": .string(u.role),
         "created_at": .time(u.createdAt), "totp_enabled": .bool(u.totpEnabled)]
    }

    static func token(_ t: APITokenRecord, secret: String? = nil) -> JSON {
        var o = JSONObject([("id", .int(t.id)), ("name", .string(t.name)), ("scope", .string(t.scope))])
        if let secret { o["token"] = .string(secret) }
        o["created_at"] = .time(t.createdAt)
        o["expires_at"] = .time(t.expiresAt)
        o["last_used_at"] = .time(t.lastUsedAt)
        return .object(o)
    }

    static func me(_ p: Principal) -> JSON {
        ["id": .int(p.user.id), "email": .string(p.user.email), "name": .string(p.user.name),
         "role": .string(p.role.rawValue), "scope": .string(p.scope.rawValue)]
    }
}
