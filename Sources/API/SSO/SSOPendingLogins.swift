import Core
import Crypto
import Synchronization

/// A sign-in between "redirect to the provider" and "callback": what the
/// callback must find again. Kept server-side (nothing secret travels in
/// `state`), bound to the browser that started it by a cookie whose SHA-256
/// is stored, single use, ten minutes.
struct SSOPending: Sendable {
    let provider: String
    let nonce: String
    let codeVerifier: String
    let next: String
    let browserHash: [UInt8]
    let expires: Int64
}

final class SSOPendingLogins: Sendable {
    static let lifetime: Int64 = 600
    /// Bounds memory against someone clicking "Sign in with …" in a loop.
    static let capacity = 10_000
    private let entries = Mutex<[String: SSOPending]>([:])

    func add(state: String, _ pending: SSOPending) {
        let now = Time.now()
        entries.withLock { e in
            if e.count >= Self.capacity { e = e.filter { $0.value.expires > now } }
            if e.count >= Self.capacity, let oldest = e.min(by: { $0.value.expires < $1.value.expires }) {
                e.removeValue(forKey: oldest.key)
            }
            e[state] = pending
        }
    }

    enum Failure: Error { case unknown, otherBrowser, expired }

    /// Removes and returns the sign-in for `state`. Removal happens even on
    /// failure, so a state can never be tried twice.
    func take(state: String, browser: String?) -> Result<SSOPending, Failure> {
        let found = entries.withLock { $0.removeValue(forKey: state) }
        guard let found else { return .failure(.unknown) }
        guard let browser, constantTimeEquals(SHA256.hash(browser), found.browserHash) else { return .failure(.otherBrowser) }
        guard found.expires > Time.now() else { return .failure(.expired) }
        return .success(found)
    }
}
