#if canImport(Glibc)
import Glibc
#endif

/// Process metrics read from /proc (resident memory, CPU time, open fds).
enum ProcessStats {
    static func render() -> String {
        var out = ""
        if let rss = residentBytes() {
            out += "# HELP process_resident_memory_bytes Resident memory size in bytes.\n# TYPE process_resident_memory_bytes gauge\n"
            out += "process_resident_memory_bytes \(rss)\n"
        }
        var usage = rusage()
        if getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 {
            let seconds = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
            out += "# HELP process_cpu_seconds_total User and system CPU time spent.\n# TYPE process_cpu_seconds_total counter\n"
            out += "process_cpu_seconds_total \(seconds)\n"
        }
        return out
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
