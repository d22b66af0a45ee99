@testable import QR
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Real decoding: each symbol is written as a PBM image and read back with
/// `zbarimg` (Debian zbar-tools, installed by .ci/run). A decoder written by
/// someone else is the test that the layout, masks and codewords are right.
@Suite(.enabled(if: ZBar.path != nil, "zbarimg not found on PATH: apt-get install zbar-tools to run the decoding tests"))
struct QRDecodeTests {
    static let otpauth = "otpauth://totp/pingtxt%20hub:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=pingtxt%20hub&algorithm=SHA1&digits=6&period=30"

    @Test func otpauthURI() throws {
        let m = try QRCode.matrix(Self.otpauth)
        let decoded = try ZBar.decode(m)
        #expect(decoded == Self.otpauth)
    }

    /// Text of exactly the capacity of `version` at `ecc`, so that version is
    /// chosen; pseudo-random printable characters so every mask sees varied
    /// data (a short repeating text can itself look like finder patterns).
    static func text(filling version: Int, ecc: ECC) -> String {
        let alphabet = Array("pingtxt hub: ada@example.com 0123456789 /status?x=1&y=2 QRSTUVWXYZ")
        var seed = UInt32(version * 97 + 13)
        let count = Capacity.byteCapacity(version: version, ecc: ecc)
        return String((0..<count).map { _ in
            seed = seed &* 1_103_515_245 &+ 12345
            return alphabet[Int(seed >> 16) % alphabet.count]
        })
    }

    @Test(arguments: [1, 5, 10, 20])
    func forcedVersionsAtLevelM(version: Int) throws {
        let text = Self.text(filling: version, ecc: .medium)
        let m = try QRCode.matrix(text)
        #expect(m.version == version)
        #expect(try ZBar.decode(m) == text)
    }

    @Test(arguments: [(ECC.low, 2), (.low, 7), (.quartile, 3), (.quartile, 14), (.high, 6), (.high, 27), (.medium, 32), (.low, 40)])
    func otherLevelsAndVersions(ecc: ECC, version: Int) throws {
        let text = Self.text(filling: version, ecc: ecc)
        let m = try QRCode.matrix(text, ecc: ecc)
        #expect(m.version == version)
        #expect(try ZBar.decode(m) == text, "\(ecc) version \(version) mask \(m.mask)")
    }

    @Test(arguments: 1...40)
    func everyVersionAtLevelM(version: Int) throws {
        let text = Self.text(filling: version, ecc: .medium)
        let m = try QRCode.matrix(text)
        #expect(m.version == version)
        let decoded = try ZBar.decode(m)
        #expect(decoded == text, "version \(version) mask \(m.mask)")
    }

    /// The penalty picks only some masks for these texts: force each one.
    @Test(arguments: 0..<8)
    func everyMaskDecodes(mask: Int) throws {
        let text = Self.text(filling: 8, ecc: .quartile)
        let m = try QRCode.matrix(bytes: Array(text.utf8), ecc: .quartile, mask: mask)
        #expect(m.mask == mask)
        #expect(try ZBar.decode(m) == text, "mask \(mask)")
    }

    /// A short repeating text at 13-M, mask 1, once made zbarimg also report
    /// a six-digit linear barcode it saw in the module rows: only the QR
    /// reader is enabled now, and this symbol stays as the reminder.
    @Test func repeatingTextIsReadAsOneQRCode() throws {
        let alphabet = Array("pingtxt hub: ada@example.com 0123456789 /status?x=1&y=2 ")
        let count = Capacity.byteCapacity(version: 13, ecc: .medium)
        let text = String((0..<count).map { alphabet[($0 * 7 + 13) % alphabet.count] })
        let m = try QRCode.matrix(bytes: Array(text.utf8), ecc: .medium, mask: 1)
        #expect(m.version == 13)
        #expect(try ZBar.decode(m) == text)
    }

    @Test func shortTextsAtEveryLevel() throws {
        for ecc in ECC.allCases {
            for text in ["a", "https://hub.example.com/status/main", "Grüße, pingtxt ✓"] {
                let m = try QRCode.matrix(text, ecc: ecc)
                #expect(try ZBar.decode(m) == text, "\(ecc) \(text)")
            }
        }
    }
}

enum ZBar {
    static let path: String? = {
        guard let p = getenv("PATH") else { return nil }
        for dir in String(cString: p).split(separator: ":") where access("\(dir)/zbarimg", X_OK) == 0 {
            return "\(dir)/zbarimg"
        }
        return nil
    }()

    /// A plain PBM (P1): 1 = black, each module `scale` pixels, with the
    /// 4-module quiet zone the standard requires around the symbol.
    static func pbm(_ m: QRMatrix, scale: Int = 3) -> String {
        let side = (m.size + 8) * scale
        var out = "P1\n\(side) \(side)\n"
        for py in 0..<side {
            var row = [UInt8]()
            row.reserveCapacity(side * 2)
            for px in 0..<side {
                let x = px / scale - 4, y = py / scale - 4
                let dark = (0..<m.size).contains(x) && (0..<m.size).contains(y) && m[x, y]
                row.append(dark ? UInt8(ascii: "1") : UInt8(ascii: "0"))
                row.append(UInt8(ascii: px % 30 == 29 ? "\n" : " "))
            }
            out += String(decoding: row, as: UTF8.self) + "\n"
        }
        return out
    }

    /// Writes the image to a temporary file and returns what zbarimg read
    /// (`--raw`: the data alone; its trailing newline removed).
    static func decode(_ m: QRMatrix, scale: Int = 3) throws -> String {
        var template = Array("/tmp/qrtest-XXXXXX.pbm".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 4) }
        guard fd >= 0 else { throw DecodeError("mkstemps failed") }
        let file = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        // zbarimg's stderr (ImageMagick's D-Bus chatter, errors) goes to a
        // file of its own: only its standard output is the decoded text.
        defer { unlink(file); unlink(file + ".err") }
        let bytes = Array(pbm(m, scale: scale).utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count else { throw DecodeError("short write to \(file)") }
        guard let zbarimg = path, let pipe = popen("'\(zbarimg)' --raw -q -Sdisable -Sqrcode.enable -Sbinary '\(file)' 2>'\(file).err'", "r") else {
            throw DecodeError("cannot run zbarimg")
        }
        var output = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, pipe)
            if n <= 0 { break }
            output += buffer[0..<n]
        }
        let status = pclose(pipe)
        guard status == 0 else {
            throw DecodeError("zbarimg could not read the version \(m.version) symbol (status \(status)): \(readText(file + ".err"))")
        }
        if output.last == UInt8(ascii: "\n") { output.removeLast() }
        return String(decoding: output, as: UTF8.self)
    }
}

func readText(_ path: String) -> String {
    guard let f = fopen(path, "r") else { return "" }
    defer { fclose(f) }
    var out = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&buffer, 1, buffer.count, f)
        if n <= 0 { break }
        out += buffer[0..<n]
    }
    return String(decoding: out, as: UTF8.self)
}

struct DecodeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
