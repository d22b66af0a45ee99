import Core
import Testing

/// Which hub checks a monitor (SPEC §14, docs/postgres.md): every hub
/// computes the same owner, the monitors spread evenly, and when a hub
/// leaves only its own monitors move.
@Suite struct RendezvousTests {
    let nodes = ["hub-a:8080", "hub-b:8080", "hub-c:8080"]

    @Test func sameOwnerWhateverTheOrderOfTheList() {
        for id in Int64(1)...500 {
            #expect(Rendezvous.owner(of: id, among: nodes) == Rendezvous.owner(of: id, among: nodes.reversed()))
        }
        #expect(Rendezvous.owner(of: 1, among: []) == nil)
        #expect(Rendezvous.owner(of: 1, among: ["only"]) == "only")
    }

    @Test func spreadEvenly() {
        var counts: [String: Int] = [:]
        for id in Int64(1)...30_000 { counts[Rendezvous.owner(of: id, among: nodes)!, default: 0] += 1 }
        for node in nodes {
            // 10,000 each expected; ±5 % is far beyond chance for a good hash.
            #expect((9_500...10_500).contains(counts[node] ?? 0), "\(node): \(counts[node] ?? 0)")
        }
    }

    @Test func aHubLeavingMovesOnlyItsMonitors() {
        let after = nodes.filter { $0 != "hub-b:8080" }
        var moved = 0
        for id in Int64(1)...10_000 {
            let before = Rendezvous.owner(of: id, among: nodes)!
            let now = Rendezvous.owner(of: id, among: after)!
            if before != "hub-b:8080" { #expect(now == before) } else { moved += 1 }
        }
        #expect((3_000...3_700).contains(moved))
    }
}
