import Core
import HTTP

extension HTTPRequest {
    /// The body as a JSON object. A body that is not declared JSON is `415`;
    /// a missing one, bad JSON or a non-object is `400`.
    func jsonFields() throws -> JSONFields {
        guard !body.isEmpty else {
            throw HTTPError(400, "body_required", "This request needs a JSON body.")
        }
        let type = headers["Content-Type"]?.split(separator: ";").first.map { $0.trimmingSpaces() } ?? ""
        guard type.lowercased() == "application/json" || (type.lowercased().hasPrefix("application/") && type.lowercased().hasSuffix("+json")) else {
            throw HTTPError(415, "unsupported_media_type", "Send the body as application/json.")
        }
        return try JSONFields(try JSON.parse(body))
    }

    /// Like `jsonFields`, but an empty body is an empty object (actions whose
    /// body is optional need no Content-Type).
    func optionalJSONFields() throws -> JSONFields {
        if body.isEmpty { return try JSONFields(.object(JSONObject())) }
        return try jsonFields()
    }
}


extension HTTPResponse {
    static func json(_ value: JSON, status: Int = 200) -> HTTPResponse {
        .json(status, value.serialized())
    }
}
