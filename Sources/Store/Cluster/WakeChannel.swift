/// The wake-up channel between hubs sharing one PostgreSQL database
/// (SPEC §14, docs/postgres.md "Wake-ups"): PostgreSQL's LISTEN/NOTIFY.
///
/// Only a wake-up, never the record. `send` runs `pg_notify` inside the
/// write transaction that stores what it announces; PostgreSQL delivers a
/// notification when that transaction commits and drops it when it rolls
/// back (manual, NOTIFY: "if a NOTIFY is executed inside a transaction, the
/// notify events are not delivered until and unless the transaction is
/// committed"), so a woken hub always finds the change it was told about.
/// A hub that was not listening (restarting, reconnecting) gets `.resync`
/// once it listens again and re-reads; between resyncs the cluster beat
/// re-reads anyway, so a lost notification costs a few seconds, not a
/// request.
///
/// The channel is named after the schema the hub's tables live in, so two
/// installations sharing one database (each with its own `search_path`)
/// do not wake each other. On SQLite (one hub per file) the channel is
/// inert: `send` does nothing and nothing is ever received.
public final class WakeChannel: Sendable {
    public enum Event: Sendable, Equatable {
        case signal(WakeSignal)
        /// Listening (again) after a start or a lost connection: signals may
        /// have been missed, re-read what they would have announced.
        case resync
    }

    /// The NOTIFY channel ("" when inert).
    public let name: String
    private let listener: PostgresListener?

    /// No channel: one hub alone on its database.
    public static let inert = WakeChannel()

    private init() {
        name = ""
        listener = nil
    }

    /// The channel of `database`'s schema (inert on SQLite). Reads the
    /// current schema once.
    public init(database: Database) throws {
        guard case .postgres = database.url.kind else {
            name = ""
            listener = nil
            return
        }
        let schema = try database.read { c in try c.scalar("SELECT current_schema()") }
        if case .text(let s) = schema { name = Self.channelName(schema: s) } else { name = Self.channelName(schema: "public") }
        listener = try PostgresListener(url: database.url, channel: name)
    }

    public var isActive: Bool { listener != nil }

    /// `pingtxt_wake` for the `public` schema (so `LISTEN pingtxt_wake` in
    /// psql shows a default installation's traffic); for another schema a
    /// 64-bit FNV-1a hash of its name is appended, which keeps the name
    /// within PostgreSQL's 63-byte identifier limit whatever the schema.
    public static func channelName(schema: String) -> String {
        guard schema != "public" else { return "pingtxt_wake" }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in schema.utf8 {
            hash ^= UInt64(b)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "pingtxt_wake_" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Starts listening; `handler` runs on the listener's thread for each
    /// valid signal and each resync (keep it short). Payloads this binary
    /// does not know are ignored: anyone with access to the database can
    /// NOTIFY on the channel.
    public func start(_ handler: @escaping @Sendable (Event) -> Void) {
        listener?.start { event in
            switch event {
            case .connected: handler(.resync)
            case .notification(let payload):
                if let signal = WakeSignal(payload: payload) { handler(.signal(signal)) }
            }
        }
    }

    /// Stops listening and waits for the listener's thread.
    public func stop() { listener?.stop() }

    /// Announces `signal` when the transaction `c` is in commits (every
    /// listening hub gets it, this one included). Call it inside the write
    /// that stores what the signal announces. PostgreSQL delivers identical
    /// payloads of one transaction once.
    public func send(_ c: Connection, _ signal: WakeSignal) throws(StoreError) {
        guard listener != nil, c.engine == .postgres else { return }
        try c.execute("SELECT pg_notify(?, ?)", [.text(name), .text(signal.payload)])
    }
}
