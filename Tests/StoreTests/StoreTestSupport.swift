#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Store

/// A fresh directory (mkdtemp) per test, removed with its files on deinit.
final class TempDir {
    let path: String

    init() {
        var template = Array("/tmp/pingtxt-store-XXXXXX".utf8CString)
        let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(p != nil, "mkdtemp failed")
        path = String(cString: p!)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { TempDir.removeTree(path) }

    static func removeTree(_ path: String) {
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
                }
                if name == "." || name == ".." { continue }
                let child = path + "/" + name
                if unlink(child) != 0 { removeTree(child) }
            }
            closedir(dir)
        }
        rmdir(path)
    }
}

/// A plain pthread running `body` (the tests need real threads that block,
/// not tasks on the cooperative pool). The closure travels as an Unmanaged
/// box, see NOTES.md.
final class TestThread: Sendable {
    private final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    private let handle: Mutex<pthread_t?> = Mutex(nil)

    init(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var t = pthread_t()
        let rc = pthread_create(&t, nil, { arg in
            let b = Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue()
            b.body()
            return nil
        }, box)
        precondition(rc == 0, "pthread_create failed")
        handle.withLock { $0 = t }
    }

    func join() {
        if let t = handle.withLock({ h -> pthread_t? in let t = h; h = nil; return t }) {
            pthread_join(t, nil)
        }
    }
}

/// Waits (polling) until `condition` holds or the timeout passes.
@discardableResult
func waitUntil(timeoutMillis: Int = 5000, _ condition: () -> Bool) -> Bool {
    var waited = 0
    while !condition() {
        if waited >= timeoutMillis { return false }
        usleep(1000)
        waited += 1
    }
    return true
}

func monotonicMillis() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
}

/// A shareable atomic integer (Atomic itself is ~Copyable and cannot be
/// captured by escaping closures).
final class Counter: Sendable {
    private let raw = Atomic<Int>(0)
    init(_ initial: Int = 0) { raw.store(initial, ordering: .sequentiallyConsistent) }
    var value: Int { raw.load(ordering: .sequentiallyConsistent) }
    var isSet: Bool { value != 0 }
    func set(_ v: Int = 1) { raw.store(v, ordering: .sequentiallyConsistent) }
    func add(_ v: Int = 1) { raw.add(v, ordering: .sequentiallyConsistent) }
}
