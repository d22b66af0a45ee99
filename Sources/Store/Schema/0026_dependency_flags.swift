/// Two flags on `monitors` that say whether a monitor takes part in a
/// dependency at all (SPEC §12), so the result path of the great majority
/// that do not pays nothing for the feature: without them, every recorded
/// result asked `monitor_dependencies` for the monitor's parents and
/// children — two more indexed statements per check, each a round trip on
/// PostgreSQL inside the write transaction.
///
/// - `has_parents`: the monitor has rows in `monitor_dependencies` as child.
/// - `has_children`: some monitor depends on it.
///
/// `Dependencies.replace` keeps both in the transaction that changes the
/// edges. A flag may stay set after the last edge went away with a deleted
/// monitor (the cascade does not clear it); that only costs the two
/// lookups again, never a wrong decision, and the next edit of the
/// monitor's dependencies recomputes it.
enum Schema0026 {
    static let migration = Migration(name: "0026_dependency_flags", sql: """
        ALTER TABLE monitors ADD COLUMN has_parents INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE monitors ADD COLUMN has_children INTEGER NOT NULL DEFAULT 0;
        UPDATE monitors SET has_parents = 1 WHERE id IN (SELECT monitor_id FROM monitor_dependencies);
        UPDATE monitors SET has_children = 1 WHERE id IN (SELECT parent_id FROM monitor_dependencies);
        """)
}
