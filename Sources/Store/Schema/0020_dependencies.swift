/// Monitor dependencies (SPEC §12).
///
/// - `monitor_dependencies`: one row per (child, parent). A table rather than
///   JSON on the monitor, so "the children of this parent" — asked every time
///   a parent's result is recorded — is one indexed lookup. Deleting either
///   monitor removes the row.
/// - `incidents.held_since`, `held_until`: a `down` incident whose
///   `monitor_down` waits for the parents' verdict. `held_since` is the
///   `check_results.id` every parent (and the child) must have a result at
///   least as new as (ids order results finer than their one-second times);
///   `held_until` when the hub decides with what it has (at most two of the
///   child's intervals). Both NULL = not held. In the database, so a hold
///   survives a restart and any hub may release it (a conditional UPDATE
///   claims it once).
/// - `incidents.suppressed_by`: the parent that was down when the hold ended;
///   such an incident sends no alert, reminder, escalation or `monitor_up`.
///   No foreign key: the incident's history keeps the id after the parent is
///   deleted.
enum Schema0020 {
    static let migration = Migration(name: "0020_dependencies", sql: """
        CREATE TABLE monitor_dependencies (
            monitor_id INTEGER NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
            parent_id INTEGER NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
            PRIMARY KEY (monitor_id, parent_id)
        );
        CREATE INDEX monitor_dependencies_parent ON monitor_dependencies (parent_id);
        ALTER TABLE incidents ADD COLUMN held_since INTEGER;
        ALTER TABLE incidents ADD COLUMN held_until INTEGER;
        ALTER TABLE incidents ADD COLUMN suppressed_by INTEGER;
        CREATE INDEX incidents_held ON incidents (held_until) WHERE held_until IS NOT NULL;
        """)
}
