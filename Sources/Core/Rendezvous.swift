/// Which hub owns a monitor when several share a database: rendezvous
/// (highest random weight) hashing. Every hub computes the same owner from
/// the same list of live hubs, with no coordination; when a hub joins or
/// leaves, only the monitors it gains or loses move (about 1/n of them),
/// unlike `id % n`, which reshuffles nearly everything.
public enum Rendezvous {
    /// The node with the highest score for `key`; nil when `nodes` is empty.
    public static func owner(of key: Int64, among nodes: [String]) -> String? {
        var best: (score: UInt64, node: String)?
        for node in nodes {
            let s = score(node, key)
            // Ties (astronomically rare) go to the smaller name, so every hub agrees.
            if let b = best, s < b.score || (s == b.score && node > b.node) { continue }
            best = (s, node)
        }
        return best?.node
    }

    /// FNV-1a of the node's name, mixed with the key by SplitMix64's
    /// finaliser: a well-spread 64-bit score that is the same on every hub
    /// (Swift's `Hasher` is seeded per process, so it cannot be used).
    public static func score(_ node: String, _ key: Int64) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in node.utf8 {
            h ^= UInt64(b)
            h &*= 0x100_0000_01b3
        }
        var z = h ^ (UInt64(bitPattern: key) &* 0x9e37_79b9_7f4a_7c15)
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
