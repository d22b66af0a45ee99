import Core
import DNS
import Net

/// Runs one check of a monitor from this location and reports a
/// `CheckResult`. HTTP, TCP and TLS checks run on the client engine's event
/// loops (no thread per check); DNS queries block, so they run on a small
/// worker pool. Completions arrive on those threads and must not block.
public final class CheckExecutor: Sendable {
    public let engine: ClientEngine
    public let location: String
    private let dnsPool: WorkerPool

    public init(engine: ClientEngine, location: String, dnsThreads: Int = 8) {
        self.engine = engine
        self.location = location
        dnsPool = WorkerPool(threads: dnsThreads, name: "dns-check")
    }

    public func shutdown() {
        dnsPool.shutdown()
    }

    public func run(_ config: MonitorConfig, completion: @escaping @Sendable (CheckResult) -> Void) {
        let at = Time.now()
        let timeoutMs = Int(config.timeout) * 1000
        let location = self.location
        switch config.type {
        case .http:
            let settings = config.http ?? HTTPSettings()
            var request = ClientRequest(method: settings.method, url: config.target ?? "",
                                        headers: settings.headers.map { ($0.name, $0.value) },
                                        body: settings.body.map { Array($0.utf8) })
            request.timeoutMillis = timeoutMs
            request.followRedirects = settings.followRedirects
            request.verifyTLS = settings.verifyTLS
            engine.execute(request) { result in
                completion(Self.evaluate(result, settings: settings, at: at, location: location))
            }
        case .tcp:
            guard let (host, port) = Targets.hostPort(config.target ?? "") else {
                return completion(CheckResult(at: at, location: location, outcome: .down, error: "invalid target"))
            }
            engine.connectTCP(host: host, port: port, timeoutMillis: timeoutMs) { probe in
                completion(CheckResult(at: at, location: location, outcome: probe.failure == nil ? .up : .down,
                                       latencyMs: Self.millis(probe.timings.totalMs), error: probe.errorDescription))
            }
        case .tls:
            guard let (host, port) = Targets.hostPort(config.target ?? "") else {
                return completion(CheckResult(at: at, location: location, outcome: .down, error: "invalid target"))
            }
            engine.probeTLS(host: host, port: port, timeoutMillis: timeoutMs, verify: true) { probe in
                completion(CheckResult(at: at, location: location, outcome: probe.failure == nil ? .up : .down,
                                       latencyMs: Self.millis(probe.timings.totalMs), error: probe.errorDescription,
                                       certNotAfter: probe.tls?.notAfter))
            }
        case .dns:
            let settings = config.dns ?? DNSSettings()
            let name = config.target ?? ""
            dnsPool.submit {
                completion(Self.resolve(name, settings: settings, timeoutMs: timeoutMs, at: at, location: location))
            }
        case .ping:
            let count = (config.ping ?? PingSettings()).count
            engine.ping(host: config.target ?? "", count: count, timeoutMillis: timeoutMs) { r in
                completion(Self.evaluate(r, host: config.target ?? "", at: at, location: location))
            }
        case .heartbeat:
            // Heartbeats are pinged, never polled; the watcher evaluates them.
            completion(CheckResult(at: at, location: location, outcome: .down, error: "heartbeats are not polled"))
        }
    }

    /// Blocking form for check-now: runs on a worker thread, never an engine loop.
    public func run(_ config: MonitorConfig) -> CheckResult {
        let done = Semaphore()
        let result = Handoff<CheckResult>()
        run(config) { r in
            result.put(r)
            done.post()
        }
        done.wait()
        return result.take()!
    }

    static func evaluate(_ r: ClientResult, settings: HTTPSettings, at: Int64, location: String) -> CheckResult {
        let latency = millis(r.timings.totalMs)
        let cert = r.tls?.notAfter
        guard let response = r.response else {
            return CheckResult(at: at, location: location, outcome: .down, latencyMs: latency,
                               error: r.errorDescription ?? "request failed", certNotAfter: cert)
        }
        var failure: String?
        if !settings.expectedStatus.contains(response.status) {
            failure = "HTTP \(response.status)"
        } else if let keyword = settings.keyword {
            let found = contains(response.body, Array(keyword.utf8))
            if found && settings.keywordAbsent {
                failure = "keyword \"\(keyword)\" found"
            } else if !found && !settings.keywordAbsent {
                failure = "keyword \"\(keyword)\" not found"
            }
        }
        if failure == nil, !settings.json.isEmpty {
            failure = JSONCheck.failure(of: settings.json, body: response.body, truncated: response.bodyTruncated)
        }
        return CheckResult(at: at, location: location, outcome: failure == nil ? .up : .down, latencyMs: latency,
                           statusCode: response.status, error: failure, certNotAfter: cert)
    }

    /// Up while any echo came back; latency is the mean round trip, which
    /// the state machine compares with `degraded_after_ms`.
    static func evaluate(_ r: PingResult, host: String, at: Int64, location: String) -> CheckResult {
        if let failure = r.failure {
            return CheckResult(at: at, location: location, outcome: .down, error: failure.description, packetLoss: 1)
        }
        guard let mean = r.meanMs else {
            return CheckResult(at: at, location: location, outcome: .down,
                               error: "no echo reply from \(host) (\(r.sent) sent)", packetLoss: 1)
        }
        return CheckResult(at: at, location: location, outcome: .up, latencyMs: max(0, millis(mean)),
                           packetLoss: (r.packetLoss * 1000).rounded() / 1000)
    }

    static func resolve(_ name: String, settings: DNSSettings, timeoutMs: Int, at: Int64, location: String) -> CheckResult {
        guard let type = DNSRecordType(apiName: settings.recordType) else {
            return CheckResult(at: at, location: location, outcome: .down, error: "unknown record type \(settings.recordType)")
        }
        let client = DNSClient(servers: settings.resolver.map { [$0] }, timeoutMillis: timeoutMs, attempts: 1)
        let started = Time.monotonicNanos()
        do {
            let response = try client.query(name, type: type)
            let outcome = DNSExpectation.evaluate(expected: settings.expected, response: response)
            return CheckResult(at: at, location: location, outcome: outcome.ok ? .up : .down,
                               latencyMs: millis(response.latencyMs), error: outcome.ok ? nil : outcome.message)
        } catch {
            return CheckResult(at: at, location: location, outcome: .down,
                               latencyMs: millis(Double(Time.monotonicNanos() - started) / 1e6), error: "DNS: \(error)")
        }
    }

    static func millis(_ ms: Double) -> Int { Int(ms.rounded()) }

    /// Byte substring search (keywords are matched on raw bytes, so a body in
    /// any encoding can be searched for an ASCII marker).
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty }
        let first = needle[0]
        var i = 0
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == first && haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }
}
