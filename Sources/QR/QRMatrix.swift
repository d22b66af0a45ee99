/// A finished QR symbol: `size` × `size` modules, true = dark.
public struct QRMatrix: Sendable, Equatable {
    public let version: Int
    public let ecc: ECC
    /// The mask pattern (0–7) chosen by the penalty rules.
    public let mask: Int
    public let size: Int
    /// Row-major modules.
    var modules: [Bool]

    /// The module in column `x`, row `y` (both from the top-left corner).
    public subscript(x: Int, y: Int) -> Bool { modules[y * size + x] }

    /// The SVG: a white background and one black `<path>` of unit squares,
    /// offset by the 4-module quiet zone; crispEdges keeps module borders
    /// sharp when the image is scaled by a non-integer factor.
    public func svg(moduleSize: Int = 4, label: String = "QR code") -> String {
        let side = size + 8
        let pixels = side * max(1, moduleSize)
        var d = ""
        for y in 0..<size {
            for x in 0..<size where self[x, y] {
                d += "M\(x + 4) \(y + 4)h1v1h-1z"
            }
        }
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(side) \(side)\" width=\"\(pixels)\" "
            + "height=\"\(pixels)\" role=\"img\" aria-label=\"\(escape(label))\" shape-rendering=\"crispEdges\">"
            + "<rect width=\"\(side)\" height=\"\(side)\" fill=\"#fff\"/>"
            + "<path fill=\"#000\" d=\"\(d)\"/></svg>"
    }

    private func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
