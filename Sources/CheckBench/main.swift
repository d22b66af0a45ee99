// CheckBench: the hub's outbound check engine (`Net.ClientEngine`) at full
// speed against one URL, for comparison with prometheus-blackbox-exporter.
//
//   CheckBench URL --concurrency N --seconds S [--loops L] [--timeout-ms T]
//
// Keeps N requests in flight for S seconds (each completion starts the next
// one until the deadline), then waits for the stragglers and prints one line:
//   checks=… seconds=… checks_per_s=… errors=… concurrency=… loops=…
// `checks` counts completed exchanges (errors included); an error is a
// failure or a status outside 200–399. Exit 1 on bad arguments.
import Core
import Net
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

struct Options: Sendable {
    var url = ""
    var concurrency = 64
    var seconds = 10.0
    var loops = 1
    var timeoutMillis = 10_000
}

/// Shared by every in-flight chain; all state is atomic or immutable.
final class Runner: Sendable {
    let engine: ClientEngine
    let request: ClientRequest
    let deadline: UInt64
    let completed = Atomic<Int>(0)
    let errors = Atomic<Int>(0)
    let live: Atomic<Int>
    let done = Semaphore()
    let firstError = Mutex<String?>(nil)

    init(engine: ClientEngine, request: ClientRequest, deadline: UInt64, chains: Int) {
        self.engine = engine
        self.request = request
        self.deadline = deadline
        self.live = Atomic<Int>(chains)
    }

    func issue() {
        engine.execute(request) { @Sendable [self] result in
            self.finished(result)
        }
    }

    private func finished(_ result: ClientResult) {
        completed.wrappingAdd(1, ordering: .relaxed)
        let ok: Bool
        if let response = result.response, result.failure == nil {
            ok = response.status >= 200 && response.status < 400
            if !ok { noteError("HTTP \(response.status)") }
        } else {
            ok = false
            noteError(result.errorDescription ?? "failure")
        }
        if !ok { errors.wrappingAdd(1, ordering: .relaxed) }
        if Time.monotonicNanos() < deadline {
            issue()
        } else if live.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            done.post()
        }
    }

    private func noteError(_ text: String) {
        firstError.withLock { if $0 == nil { $0 = text } }
    }
}

enum CheckBench {
    static func usage() -> Never {
        let text = "usage: CheckBench URL --concurrency N --seconds S [--loops L] [--timeout-ms T]\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
        exit(1)
    }

    static func parse(_ args: [String]) -> Options {
        var o = Options()
        var i = 1
        var sawURL = false
        func value(_ i: Int) -> String {
            guard i + 1 < args.count else { usage() }
            return args[i + 1]
        }
        while i < args.count {
            switch args[i] {
            case "--concurrency", "-c":
                guard let v = Int(value(i)), v > 0 else { usage() }
                o.concurrency = v; i += 2
            case "--seconds", "-s":
                guard let v = Double(value(i)), v > 0 else { usage() }
                o.seconds = v; i += 2
            case "--loops", "-l":
                guard let v = Int(value(i)), v > 0 else { usage() }
                o.loops = v; i += 2
            case "--timeout-ms":
                guard let v = Int(value(i)), v > 0 else { usage() }
                o.timeoutMillis = v; i += 2
            case "-h", "--help":
                usage()
            default:
                guard !sawURL, !args[i].hasPrefix("-") else { usage() }
                o.url = args[i]; sawURL = true; i += 1
            }
        }
        guard sawURL else { usage() }
        return o
    }

    static func run(_ o: Options) {
        let engine = ClientEngine(loops: o.loops, maxConcurrent: max(o.concurrency, 1))
        var request = ClientRequest(url: o.url)
        request.timeoutMillis = o.timeoutMillis
        request.followRedirects = false
        let start = Time.monotonicNanos()
        let runner = Runner(engine: engine, request: request,
                            deadline: start + UInt64(o.seconds * 1e9), chains: o.concurrency)
        for _ in 0..<o.concurrency { runner.issue() }
        runner.done.wait()
        let elapsed = Double(Time.monotonicNanos() - start) / 1e9
        engine.shutdown()
        let checks = runner.completed.load(ordering: .relaxed)
        let errors = runner.errors.load(ordering: .relaxed)
        let rate = Double(checks) / elapsed
        print("checks=\(checks) seconds=\(fixed(elapsed, 3)) checks_per_s=\(fixed(rate, 1)) errors=\(errors)"
              + " concurrency=\(o.concurrency) loops=\(o.loops)")
        if let first = runner.firstError.withLock({ $0 }) {
            print("first_error=\(first)")
        }
    }

    /// `value` with `digits` decimals, without Foundation's String(format:).
    static func fixed(_ value: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (value * scale).rounded()
        let whole = Int(scaled / scale)
        let frac = Int(abs(scaled) - abs(Double(whole)) * scale)
        guard digits > 0 else { return "\(whole)" }
        var f = "\(frac)"
        while f.count < digits { f = "0" + f }
        return "\(whole).\(f)"
    }
}

CheckBench.run(CheckBench.parse(CommandLine.arguments))
