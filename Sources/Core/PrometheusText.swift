/// Prometheus text exposition format (version 0.0.4), written one family at
/// a time so every family gets its `# HELP` and `# TYPE` lines and label
/// values are escaped the one way the format asks (`\\`, `\"`, `\n`).
public struct PrometheusText: Sendable {
    public enum Kind: String, Sendable { case counter, gauge, summary, histogram }

    public private(set) var text = ""

    public init() {}

    /// Starts a family; the samples that follow belong to it.
    public mutating func family(_ name: String, _ kind: Kind, help: String) {
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
    }

    public mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String>, _ value: some BinaryInteger) {
        line(name, labels, String(value))
    }

    public mutating func sample(_ name: String, _ value: some BinaryInteger) { sample(name, [:], value) }

    public mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String>, _ value: Double) {
        line(name, labels, value.isFinite ? "\(value)" : (value.isNaN ? "NaN" : (value > 0 ? "+Inf" : "-Inf")))
    }

    public mutating func sample(_ name: String, _ value: Double) { sample(name, [:], value) }

    private mutating func line(_ name: String, _ labels: KeyValuePairs<String, String>, _ value: String) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.key)=\"\(Self.escapeLabel($0.value))\"" }.joined(separator: ",") + "}"
        }
        text += " " + value + "\n"
    }

    /// `k1="v1",k2="v2"` escaped, for callers that write many samples with
    /// the same labels (`/metrics` per monitor): escaped once, not per line.
    public static func labelText(_ labels: KeyValuePairs<String, String>) -> String {
        labels.map { "\($0.key)=\"\(escapeLabel($0.value))\"" }.joined(separator: ",")
    }

    /// A sample whose label text `labelText` made (`extra` appended after a
    /// comma, already escaped).
    public mutating func sample(_ name: String, labelText: String, extra: String = "", _ value: String) {
        text += name
        text += "{"
        text += labelText
        if !extra.isEmpty {
            text += ","
            text += extra
        }
        text += "} "
        text += value
        text += "\n"
    }

    static func escapeLabel(_ v: String) -> String {
        // Most values need nothing: skip the scalar loop for them.
        guard v.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == 10 }) else { return v }
        return Escaping.replacing(v) { scalar in
            switch scalar {
            case "\\": "\\\\"
            case "\"": "\\\""
            case "\n": "\\n"
            default: nil
            }
        }
    }

    /// HELP text escapes only the backslash and the line feed.
    static func escapeHelp(_ v: String) -> String {
        Escaping.replacing(v) { scalar in
            switch scalar {
            case "\\": "\\\\"
            case "\n": "\\n"
            default: nil
            }
        }
    }
}
