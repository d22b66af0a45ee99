/// Length limits for stored text, in characters and in UTF-8 bytes.
///
/// Characters (grapheme clusters) are what a person counts, but one cluster
/// can hold any number of combining scalars: a "one character" name of
/// 200 KB would pass a character limit alone and then be served to anyone
/// on status pages and badges. So every stored text field is bounded in
/// bytes too, by default 4 bytes per allowed character (the most one
/// scalar takes in UTF-8), which no real name in any script comes near.
public enum TextLimit {
    /// True when `s` has at most `characters` characters and at most
    /// `bytes` UTF-8 bytes (default `4 × characters`). Bytes are checked
    /// first: that is O(1) for native strings and bounds the character count's cost.
    public static func fits(_ s: String, characters: Int, bytes: Int? = nil) -> Bool {
        s.utf8.count <= (bytes ?? characters * 4) && s.count <= characters
    }

    /// The limit as error messages and docs write it: "200 characters (800 bytes)".
    public static func describe(characters: Int, bytes: Int? = nil) -> String {
        "\(characters) characters (\(bytes ?? characters * 4) bytes)"
    }
}
