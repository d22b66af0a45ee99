/// What SQLite gave for free and PostgreSQL has not (SPEC §14): a row's
/// insertion order. `login_approvals` is keyed by a random id, and its
/// queries broke ties within one second by SQLite's hidden `rowid`; `seq`
/// is that order made explicit, so both engines sort alike. Rows from
/// before this migration (approvals live two minutes) all have 0.
enum Schema0013 {
    static let migration = Migration(name: "0013_portable_order", sql: """
        ALTER TABLE login_approvals ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
        """)
}
