import Core

/// "<address> · <browser>" for a sign-in approval (SPEC §11): what the phone
/// shows so its owner can tell their own sign-in from someone else's. The
/// User-Agent is the requester's own text, so it is reduced to a known
/// browser name where possible, otherwise to its first product token, with
/// control and bidirectional-override characters removed (they could fake
/// or reorder what the phone displays) and the length bounded.
enum ClientLabel {
    static let maxBrowserLength = 40
    static let maxAddressLength = 64

    static func describe(address: String, userAgent: String?) -> String {
        "\(clean(address, max: maxAddressLength)) · \(browser(userAgent))"
    }

    /// Browsers name the engines they imitate too ("Chrome/… Safari/…"), so
    /// the most specific marker wins: Edge and Opera before Chrome, Chrome
    /// before Safari.
    static let markers: [(marker: String, name: String)] = [
        ("Edg/", "Edge"), ("EdgA/", "Edge"), ("EdgiOS/", "Edge"), ("OPR/", "Opera"), ("SamsungBrowser/", "Samsung Internet"),
        ("Firefox/", "Firefox"), ("FxiOS/", "Firefox"), ("Chromium/", "Chromium"), ("CriOS/", "Chrome"), ("Chrome/", "Chrome"),
        ("Safari/", "Safari"), ("curl/", "curl"), ("Wget/", "Wget"),
    ]

    static func browser(_ userAgent: String?) -> String {
        let ua = clean(userAgent ?? "", max: 1024)
        if let known = markers.first(where: { ua.contains($0.marker) }) { return known.name }
        // Unknown: the first product name (`python-requests/2.31` → `python-requests`).
        let first = ua.split(separator: " ").first.map { $0.split(separator: "/").first.map(String.init) ?? "" } ?? ""
        let name = clean(first, max: maxBrowserLength)
        return name.isEmpty ? "unknown browser" : name
    }

    /// Without C0/C1 controls and bidi overrides, trimmed, at most `max` characters.
    static func clean(_ s: String, max: Int) -> String {
        var out = String.UnicodeScalarView()
        for scalar in s.unicodeScalars where !isHidden(scalar) {
            out.append(scalar)
        }
        let text = String(out).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        return TextLimit.cut(text, to: max, in: .characters)
    }

    private static func isHidden(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (0x7F...0x9F).contains(s.value) || (0x202A...0x202E).contains(s.value)
            || (0x2066...0x2069).contains(s.value) || s.value == 0x200E || s.value == 0x200F
    }
}
