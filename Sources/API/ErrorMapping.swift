import Auth
import Core
import HTTP
import Monitoring
import Notify
import Store

/// One place that turns domain errors into the spec's `/api` error answers.
enum APIErrors {
    static func http(_ error: any Error) -> HTTPError {
        switch error {
        case let e as HTTPError: return e
        case let e as AuthError: return http(e)
        case MonitoringError.notFound(let message): return HTTPError(404, "not_found", message)
        case MonitoringError.conflict(let code, let message): return HTTPError(409, code, message)
        case MonitoringError.fieldConflict(let field, let code, let message): return HTTPError(409, code, message, field: field)
        case NotifyError.notFound(let message): return HTTPError(404, "not_found", message)
        case NotifyError.conflict(let code, let message): return HTTPError(409, code, message)
        case let e as DeviceNotFound: return HTTPError(404, "not_found", e.message)
        case let e as JSONFieldError: return HTTPError(400, "validation_failed", e.message, field: e.field.isEmpty ? nil : e.field)
        case let e as JSONParseError: return HTTPError(400, "invalid_json", "The body is not valid JSON: \(e.message) at byte \(e.offset).")
        case let e as StoreError where e.isBusy:
            return HTTPError(503, "database_busy", "The database is busy; try again.", headers: ["Retry-After": "1"])
        default:
            Log.shared.error("request failed", ["error": "\(error)"])
            return HTTPError(500, "internal_error", "The server failed to handle this request.")
        }
    }

    static func http(_ e: AuthError) -> HTTPError {
        switch e {
        case .unauthenticated(let message):
            return HTTPError(401, "unauthorized", message, headers: ["WWW-Authenticate": "Bearer realm=\"pingtxt\""])
        case .forbidden(let code, let message): return HTTPError(403, code, message)
        case .invalid(let field, let message): return HTTPError(400, "validation_failed", message, field: field)
        case .conflict(let code, let message): return HTTPError(409, code, message)
        case .notFound(let message): return HTTPError(404, "not_found", message)
        }
    }
}

/// Wraps a handler so every thrown error becomes its JSON answer.
func guarded(_ body: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) -> HTTPHandler {
    return { request in
        do {
            return try body(request)
        } catch {
            throw APIErrors.http(error)
        }
    }
}
