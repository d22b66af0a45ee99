import Config
import Core
#if canImport(Glibc)
import Glibc
#endif

/// `pingtxt export [--out FILE] [--redact] [--url URL]` (SPEC §13): gives
/// every object without a key one (`POST /api/config/keys`), then writes
/// the hub's whole configuration as TOML (`GET /api/config`). Without
/// `--redact` the secrets' values are written (the hub reveals them only to
/// an admin's write token); with it each is an `env:NAME` placeholder that
/// `apply` reads from the environment.
enum ExportCommand {
    static func run(_ args: Arguments) throws {
        try args.allow(["config", "out", "redact", "url"])
        let api = try ConfigCommands.api(args)
        let redact = args.flags.contains("redact")
        _ = try api.expect("POST", "/api/config/keys")
        let answer = try api.expect("GET", "/api/config?secrets=" + (redact ? "mask" : "reveal"))
        guard case .object(let export) = answer.json else { throw CLIError("the hub's /api/config answer is not a JSON object") }
        let text: String
        do {
            text = try ConfigExport.document(export, redact: redact)
        } catch {
            throw CLIError("cannot export: \(error.description)")
        }
        if let out = args.options["out"] {
            try ConfigCommands.writeFile(out, text)
        } else {
            print(text, terminator: "")
        }
    }
}

/// What `export` and `apply` share: the hub's address and token, files.
enum ConfigCommands {
    /// `--url`, else the configured `public_url`; the token from `PINGTXT_TOKEN`.
    static func api(_ args: Arguments) throws -> HubAPI {
        let env = HubConfig.processEnvironment()
        let url = try args.options["url"] ?? CLI.loadConfig(args).server.publicURL
        return try HubAPI(url: url, token: env["PINGTXT_TOKEN"] ?? "")
    }

    static func writeFile(_ path: String, _ text: String) throws {
        guard let f = fopen(path, "w") else { throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { fclose(f) }
        let bytes = Array(text.utf8)
        guard fwrite(bytes, 1, bytes.count, f) == bytes.count else { throw CLIError("cannot write \(path)") }
    }

    static func readFile(_ path: String) throws -> String {
        guard let f = fopen(path, "r") else { throw CLIError("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = fread(&buffer, 1, buffer.count, f)
            if n > 0 { bytes.append(contentsOf: buffer[0..<n]) }
            if n < buffer.count { break }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw CLIError("\(path) is not UTF-8 text") }
        return text
    }
}
