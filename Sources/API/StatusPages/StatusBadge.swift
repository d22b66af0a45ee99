import Core

/// A shields.io-style badge: `<name> | <status>`. Pure (strings in, SVG out)
/// and table-tested. The width comes from an estimate of each character's
/// advance in 11 px Verdana (the font shields uses, with common fallbacks),
/// so no font file or measuring is needed and long names are not clipped.
enum StatusBadge {
    static let height = 20
    /// Horizontal padding on each side of each half.
    static let padding = 6

    /// Fill of the status half. White text on each keeps ≥ 4.5:1 contrast.
    static func color(_ status: String) -> String {
        switch status {
        case "up": "#1e7d3a"
        case "down": "#b3261e"
        case "degraded": "#8a5700"
        case "maintenance": "#2a57b8"
        default: "#5b6270"   // paused, pending
        }
    }

    /// Estimated width in tenths of a pixel of one character.
    static func advance(_ ch: Unicode.Scalar) -> Int {
        switch ch {
        case "i", "l", "j", "'", "|", ".", ",", ":", ";", "!", "I": return 31
        case " ", "f", "t", "r", "(", ")", "[", "]", "/", "-": return 43
        case "m", "w", "M", "W", "%", "@": return 105
        case "A"..."Z": return 75
        case "0"..."9": return 70
        case "a"..."z": return 63
        default: return ch.isASCII ? 63 : 80
        }
    }

    /// Width in whole pixels of `text`, rounded up.
    static func textWidth(_ text: String) -> Int {
        (text.unicodeScalars.reduce(0) { $0 + advance($1) } + 9) / 10
    }

    /// Names longer than this are cut with an ellipsis: a badge is a glance.
    static func shorten(_ name: String, max: Int = 40) -> String {
        TextLimit.cut(name, to: max, in: .characters)
    }

    static func svg(name: String, status: String) -> String {
        let label = shorten(name)
        let left = textWidth(label) + 2 * padding
        let right = textWidth(status) + 2 * padding
        let total = left + right
        let l = HTML.escape(label), s = HTML.escape(status)
        // Text is drawn at 10× and scaled down, as shields does, so its x
        // positions keep sub-pixel precision with integer attributes.
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(total)" height="\(height)" role="img" aria-label="\(l): \(s)">\
            <title>\(l): \(s)</title>\
            <linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>\
            <clipPath id="r"><rect width="\(total)" height="\(height)" rx="3" fill="#fff"/></clipPath>\
            <g clip-path="url(#r)"><rect width="\(left)" height="\(height)" fill="#3c424d"/>\
            <rect x="\(left)" width="\(right)" height="\(height)" fill="\(color(status))"/>\
            <rect width="\(total)" height="\(height)" fill="url(#s)"/></g>\
            <g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="110">\
            <text x="\(left * 5)" y="140" transform="scale(.1)" textLength="\((left - 2 * padding) * 10)">\(l)</text>\
            <text x="\(left * 10 + right * 5)" y="140" transform="scale(.1)" textLength="\((right - 2 * padding) * 10)">\(s)</text>\
            </g></svg>
            """
    }
}
