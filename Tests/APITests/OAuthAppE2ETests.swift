import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The mobile app's sign-in end to end, against the real binary, with a real
/// OAuth client library: `Tests/e2e/oauth_app.py` (Python, authlib + requests)
/// goes from the login form through consent, the code exchange with PKCE, API
/// calls, refresh rotation (and the reuse that ends a sign-in), connected apps,
/// revocation and a denied consent. `.ci/run` installs the two packages; where
/// they are missing the suite is skipped, with the reason shown.
@Suite(.enabled(if: PythonOAuthClient.available, "authlib/requests not importable by python3: pip install authlib requests to run it"))
struct OAuthAppE2ETests {
    @Test func adminSignsInTheAppWithReadWrite() throws {
        let hub = try HubProcess()
        let out = try PythonOAuthClient.run(hub: hub, email: HubProcess.adminEmail, password: HubProcess.adminPassword)
        #expect(out.status == .exited(0), "oauth_app.py failed (\(out.status)):\n\(out.stdout)\(out.stderr)\nhub log:\n\(hub.log)")
        #expect(out.stdout.contains("checks passed"), "no summary line:\n\(out.stdout)\(out.stderr)")
    }

    @Test func readonlyUserIsOnlyOfferedRead() throws {
        let hub = try HubProcess()
        let email = "viewer@example.com", password = "viewer password 42"
        let add = try hub.cli(["user", "add", "--email", email, "--role", "readonly", "--password-stdin"], stdin: password + "\n")
        try #require(add.status == .exited(0), "user add failed: \(add.stderr)")
        let out = try PythonOAuthClient.run(hub: hub, email: email, password: password, readonly: true)
        #expect(out.status == .exited(0), "oauth_app.py --expect-readonly failed (\(out.status)):\n\(out.stdout)\(out.stderr)\nhub log:\n\(hub.log)")
        #expect(out.stdout.contains("checks passed"), "no summary line:\n\(out.stdout)\(out.stderr)")
    }
}

enum PythonOAuthClient {
    /// The repository root, from this file's path (…/Tests/APITests/OAuthAppE2ETests.swift).
    static let repoRoot: String = {
        String(#filePath).split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/")
    }()

    static var script: String { repoRoot + "/Tests/e2e/oauth_app.py" }

    /// What python3 needs to find its packages; proxy variables are left out
    /// on purpose (the hub is on loopback).
    static let environment: [String: String] = {
        var env: [String: String] = [:]
        for name in ["PATH", "HOME", "PYTHONPATH", "PYTHONUSERBASE", "VIRTUAL_ENV", "PYENV_ROOT", "PYENV_VERSION", "LANG", "LC_ALL"] {
            if let v = getenv(name) { env[name] = String(cString: v) }
        }
        env["PATH"] = env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        return env
    }()

    /// python3 found on PATH, or nil.
    static let python: String? = {
        for dir in (environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(dir)/python3"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }()

    /// True when python3 exists and imports authlib and requests.
    static let available: Bool = {
        guard let python else { return false }
        let out = try? Subprocess.run(python, ["-c", "import authlib, requests"], environment: environment,
                                      input: nil, timeoutMillis: 30_000)
        return out?.status == .exited(0)
    }()

    static func run(hub: HubProcess, email: String, password: String, readonly: Bool = false) throws -> Subprocess.Output {
        guard let python else { throw HarnessError("python3 not found on PATH") }
        var args = [script, "--hub", "http://127.0.0.1:\(hub.port)", "--email", email, "--password", password]
        if readonly { args.append("--expect-readonly") }
        return try Subprocess.run(python, args, environment: environment, input: nil, timeoutMillis: 180_000)
    }
}
