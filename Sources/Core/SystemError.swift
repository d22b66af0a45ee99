#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: the call's name and `errno`.
public struct SystemError: Error, CustomStringConvertible, Sendable, Equatable {
    public let call: String
    public let errno: Int32

    public init(_ call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String {
        "\(call): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// Every syscall goes through here: retried on `EINTR`, a negative result
/// becomes a `SystemError` carrying `errno`. `EAGAIN` is reported to the
/// caller as an error so non-blocking code can tell "would block" apart.
@inline(__always)
public func sys<T: BinaryInteger>(_ call: @autoclosure () -> String, _ body: () -> T) throws(SystemError) -> T {
    while true {
        let result = body()
        if result >= 0 { return result }
        let code = Glibc.errno
        if code == EINTR { continue }
        throw SystemError(call(), errno: code)
    }
}
