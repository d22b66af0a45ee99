import Core
#if canImport(Glibc)
import Glibc
#endif

/// Process metrics read from /proc (resident memory, CPU time, open fds).
enum ProcessStats {
    static func render(into out: inout PrometheusText) {
        if let rss = residentBytes() {
            out.family("process_resident_memory_bytes", .gauge, help: "Resident memory size in bytes.")
            out.sample("process_resident_memory_bytes", rss)
        }
        var usage = rusage()
        if getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 {
            let seconds = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
            out.family("process_cpu_seconds_total", .counter, help: "User and system CPU time spent.")
            out.sample("process_cpu_seconds_total", seconds)
        }
    }

    /// Resident pages from /proc/self/statm (its second field) times the page size.
    static func residentBytes() -> Int? {
        guard let f = fopen("/proc/self/statm", "r") else { return nil }
        defer { fclose(f) }
        var buf = [CChar](repeating: 0, count: 128)
        guard fgets(&buf, 128, f) != nil else { return nil }
        let text = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let parts = text.split(separator: " ")
        guard parts.count >= 2, let pages = Int(parts[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
