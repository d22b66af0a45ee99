import CLinux
import COpenSSL
import CShims
import Core
import Crypto
import HTTP
#if canImport(Glibc)
import Glibc
#endif

/// One exchange in flight on a loop: an HTTP request with its redirect hops,
/// or a TCP / TLS probe. Lives on its loop's thread only.
final class Exchange {
    enum Phase: String { case queued = "queue", dns, connect, tls, send, firstByte = "first_byte", body, done }

    let id: UInt64
    let job: ClientJob
    let deadline: UInt64
    var phase = Phase.queued
    var active = false

    // Current hop target.
    var host = ""
    var port = 0
    var useTLS = false
    var verifyName = ""
    var sni: String?
    var isIPLiteral = false
    var verify = true

    // HTTP only.
    var request: ClientRequest?
    var url: ClientURL?
    var redirects = 0
    var headHandled = false
    var parser = HTTPResponseParser(requestMethod: "GET")
    var body: [UInt8] = []
    var bodyRead = 0
    var truncated = false

    // Connection.
    var hop: UInt32 = 0
    var sockGen: UInt16 = 0
    var fd: Int32 = -1
    var ssl: OpaquePointer?
    var interest: UInt32 = 0
    var addresses: [IPAddress] = []
    var addrIndex = 0
    var connectedAddress: IPAddress?
    var lastConnectError = "no address to connect to"
    var timerSeq: UInt32 = 0
    var out: [UInt8] = []
    var outOffset = 0
    var tlsInfo: TLSInfo?

    // Monotonic marks of the current hop (0 = not reached).
    var dnsStart: UInt64 = 0, dnsEnd: UInt64 = 0
    var connectStart: UInt64 = 0, connectEnd: UInt64 = 0
    var tlsStart: UInt64 = 0, tlsEnd: UInt64 = 0
    var sentAt: UInt64 = 0, firstByteAt: UInt64 = 0

    init(id: UInt64, job: ClientJob) {
        self.id = id
        self.job = job
        deadline = job.submittedAt &+ UInt64(max(1, job.timeoutMillis)) * 1_000_000
    }

    var epollKey: UInt64 { id << 16 | UInt64(sockGen) }

    func resetHopMarks() {
        dnsStart = 0; dnsEnd = 0; connectStart = 0; connectEnd = 0
        tlsStart = 0; tlsEnd = 0; sentAt = 0; firstByteAt = 0
    }
}
