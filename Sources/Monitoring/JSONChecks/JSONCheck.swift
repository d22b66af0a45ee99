import Core

/// Evaluates an http monitor's JSON checks against a response body: pure,
/// so the executor, the agent and the tests share one verdict.
public enum JSONCheck {
    /// nil when every assertion holds; else the cause of the first that does
    /// not, or why the body could not be read as JSON. A body the client cut
    /// at its limit (1 MiB, `ClientRequest.maxBodyBytes`) is not parsed: a
    /// cut document would fail as "not JSON", which names the wrong problem.
    public static func failure(of assertions: [JSONAssertion], body: [UInt8], truncated: Bool) -> String? {
        guard !assertions.isEmpty else { return nil }
        if truncated { return "body is larger than \(body.count / 1024) KiB; not checked as JSON" }
        let root: JSON
        do {
            root = try JSON.parse(body)
        } catch {
            return "body is not JSON (\(error.description))"
        }
        for assertion in assertions {
            if let cause = assertion.failure(in: root) { return cause }
        }
        return nil
    }
}
