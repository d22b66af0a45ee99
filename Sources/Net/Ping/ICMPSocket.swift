import CLinux
import Core
#if canImport(Glibc)
import Glibc
#endif

/// Which kind of ICMP socket an echo exchange used.
public enum ICMPSocketKind: String, Sendable {
    /// `socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP)`: no privilege needed when
    /// the process's group is within `net.ipv4.ping_group_range` (icmp(7));
    /// the kernel sets the echo identifier and delivers only this socket's replies.
    case datagram
    /// `SOCK_RAW`: needs CAP_NET_RAW; sees every ICMP packet of the host, so
    /// replies are matched by identifier, sequence and payload.
    case raw
}

/// Opens a non-blocking ICMP (or ICMPv6) socket: a datagram socket when the
/// system allows one, a raw socket otherwise.
enum ICMPSocket {
    static func open(ipv6: Bool, allowDatagram: Bool = true) -> Result<(fd: Int32, kind: ICMPSocketKind), PingFailure> {
        let family = ipv6 ? AF_INET6 : AF_INET
        let proto = Int32(ipv6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP)
        let flags = Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)
        var datagramErrno: Int32 = 0
        if allowDatagram {
            let fd = socket(family, Int32(SOCK_DGRAM.rawValue) | flags, proto)
            if fd >= 0 { return .success((fd, .datagram)) }
            datagramErrno = errno
        }
        let fd = socket(family, Int32(SOCK_RAW.rawValue) | flags, proto)
        if fd >= 0 { return .success((fd, .raw)) }
        let rawErrno = errno
        if rawErrno == EPERM || rawErrno == EACCES {
            return .failure(.notPermitted(datagramErrno: datagramErrno, rawErrno: rawErrno))
        }
        return .failure(.socket(SystemError("socket", errno: rawErrno).description))
    }
}

/// Why an echo exchange could not run at all.
public enum PingFailure: Error, Sendable, Equatable, CustomStringConvertible {
    case resolve(String)
    case notPermitted(datagramErrno: Int32, rawErrno: Int32)
    case socket(String)
    case send(String)
    case timeout

    public var description: String {
        switch self {
        case .resolve(let s): return s
        case .notPermitted:
            return "ICMP sockets not permitted: allow the hub's group in net.ipv4.ping_group_range, or grant CAP_NET_RAW"
        case .socket(let s): return "ICMP socket: \(s)"
        case .send(let s): return "ICMP send: \(s)"
        case .timeout: return "timed out resolving the host"
        }
    }
}
