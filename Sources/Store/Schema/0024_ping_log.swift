/// The ping log (SPEC §13, `GET /api/monitors/{id}/pings`).
///
/// - `heartbeat_pings.user_agent`: the request's User-Agent, cut to 512
///   bytes (`client` already holds the source address, `body` the first
///   10 KiB of the body). An exit-code ping (`/ping/{key}/{n}`, 0 included)
///   keeps its `kind` of success or fail and is told apart by a non-NULL
///   `exit_code`, so the kind CHECK of 0002 stays as it is.
enum Schema0024 {
    static let migration = Migration(name: "0024_ping_log", sql: """
        ALTER TABLE heartbeat_pings ADD COLUMN user_agent TEXT;
        """)
}
