import Core
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs `Tests/e2e/browser.py` against a `HubProcess` and reports a failed
/// step by name with the page's text.
enum BrowserHarness {
    /// Every step of the journey, in order (as in browser.py).
    static let journey = ["login", "new_monitor", "monitor_down", "acknowledge_incident",
                          "notify_webhook", "disconnect_app", "status_page"]

    /// The steps run by default: the whole journey (every page exists).
    static let stepsThatExist = journey

    /// `PINGTXT_BROWSER_STEPS`: `all` or a comma list; else `stepsThatExist`.
    static var steps: [String] {
        guard let v = getenv("PINGTXT_BROWSER_STEPS").map({ String(cString: $0) }), !v.isEmpty else { return stepsThatExist }
        return v == "all" ? journey : v.split(separator: ",").map(String.init)
    }

    static let chromium = "/usr/bin/chromium"
    static let chromedriver = "/usr/bin/chromedriver"
    static var script: String { PythonOAuthClient.repoRoot + "/Tests/e2e/browser.py" }

    /// Why the browser tests cannot run here, or nil.
    static let missing: String? = {
        var lacking: [String] = []
        if access(chromium, X_OK) != 0 { lacking.append("chromium (apt-get install chromium)") }
        if access(chromedriver, X_OK) != 0 { lacking.append("chromedriver (apt-get install chromium-driver)") }
        if let python = PythonOAuthClient.python {
            let out = try? Subprocess.run(python, ["-c", "import selenium"], environment: PythonOAuthClient.environment,
                                          input: nil, timeoutMillis: 30_000)
            if out?.status != .exited(0) { lacking.append("selenium (pip install selenium)") }
        } else {
            lacking.append("python3")
        }
        return lacking.isEmpty ? nil : "browser tests need " + lacking.joined(separator: ", ")
    }()

    struct Run {
        var status: ExitStatus
        var output: String
    }

    /// Spawns the script (output to a file in the sandbox) and, until it
    /// exits, answers its flip requests: when it writes the `--flip-file`
    /// named in `extra`, `onFlip` gets the file's text and the file is
    /// removed as the acknowledgement the script waits for.
    static func run(hub: HubProcess, steps: [String], extra: [String], timeoutMillis: Int = 300_000,
                    onFlip: (String) -> Void) throws -> Run {
        guard let python = PythonOAuthClient.python else { throw HarnessError("python3 not found on PATH") }
        var args = [script, "--hub", "http://127.0.0.1:\(hub.port)", "--email", HubProcess.adminEmail,
                    "--password", HubProcess.adminPassword, "--steps", steps.joined(separator: ","),
                    "--chromium", chromium, "--chromedriver", chromedriver] + extra
        if let dir = getenv("PINGTXT_SCREENSHOTS").map({ String(cString: $0) }), !dir.isEmpty {
            args += ["--screenshots", dir]
        }
        let flipFile = extra.firstIndex(of: "--flip-file").map { extra[$0 + 1] }
        let outPath = hub.sandbox.path("browser.out")
        let out = open(outPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard out >= 0 else { throw HarnessError("cannot open \(outPath)") }
        var environment = PythonOAuthClient.environment
        environment["HOME"] = hub.sandbox.path("")   // Chromium writes its profile and crash dirs under HOME
        environment["PYTHONUNBUFFERED"] = "1"
        let pid = try ChildProcess.spawn(python, args, environment: environment, stdout: out, stderr: out)
        close(out)

        let deadline = Time.monotonicNanos() + UInt64(timeoutMillis) * 1_000_000
        while true {
            if let status = Subprocess.wait(pid, timeoutMillis: 100) {
                return Run(status: status, output: Sandbox.readFile(outPath))
            }
            if let flipFile, Sandbox.fileExists(flipFile) {
                onFlip(String(Sandbox.readFile(flipFile).filter { !$0.isWhitespace }))
                unlink(flipFile)
            }
            if Time.monotonicNanos() > deadline {
                kill(pid, SIGKILL)
                _ = Subprocess.wait(pid, timeoutMillis: 5_000)
                return Run(status: .signaled(SIGKILL), output: Sandbox.readFile(outPath) + "\n(browser.py timed out)")
            }
        }
    }

    /// Exit 0 and every step reported OK; else one issue naming the failed
    /// step, with the script's output (which carries the page's text).
    static func expectPassed(_ run: Run, steps: [String], hub: HubProcess,
                             sourceLocation: SourceLocation = #_sourceLocation) throws {
        let failed = run.output.split(separator: "\n").first { $0.hasPrefix("STEP FAILED: ") }
        if let failed {
            Issue.record("browser step failed: \(failed.dropFirst("STEP FAILED: ".count))\n\(run.output)\nhub log:\n\(hub.log)",
                         sourceLocation: sourceLocation)
            return
        }
        #expect(run.status == .exited(0), "browser.py \(run.status):\n\(run.output)\nhub log:\n\(hub.log)",
                sourceLocation: sourceLocation)
        for step in steps {
            #expect(run.output.contains("STEP OK: \(step)\n"), "step \(step) did not report OK:\n\(run.output)",
                    sourceLocation: sourceLocation)
        }
    }
}
