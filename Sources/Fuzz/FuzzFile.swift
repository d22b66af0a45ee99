#if canImport(Glibc)
import Glibc
#endif

/// Reads a corpus file for the replay build.
enum FuzzFile {
    static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n == 0 { break }
            contents += chunk[..<n]
        }
        return contents
    }
}
