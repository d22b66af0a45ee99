/// The dashboard's status counts without counting every monitor
/// (`MonitorStatusTally`, docs/design.md "Status counts").
///
/// A grouped COUNT over `monitors` read 500,000 index entries on every
/// page: 25–32 ms on SQLite, and 300–360 ms on PostgreSQL under check load,
/// where results keep clearing the visibility map, so the index-only scan
/// visits the heap for most rows (bench/pages.sh `LOAD=250000`).
///
/// Triggers append a signed delta per change instead: +1 for an inserted
/// monitor's status, −1 for a deleted one's, −1 and +1 when a status
/// changes. Only appends, never an UPDATE of a shared counter row: with the
/// result writer, the ping lanes and other hubs changing statuses at once,
/// counter rows would be taken in different orders and deadlock. A steady
/// result does not set `status` at all (`Monitors.SQL.updateLast`), so the
/// update trigger is not even considered for it; on PostgreSQL its WHEN is
/// checked without calling the function. Reads sum a few rows per status,
/// and `MonitorStatusTally.fold` replaces the deltas by their sums.
///
/// The table is derived: `Catalog` leaves it out of copies, and the
/// target's triggers rebuild it from the copied monitors, as for 0029.
enum Schema0031 {
    static let migration = Migration(name: "0031_status_tally", sql: "", step: { c throws(StoreError) in
        switch c.engine {
        case .sqlite: try c.executeScript(sqliteScript)
        case .postgres: for statement in postgresStatements { try c.execute(statement) }
        }
        try c.execute("INSERT INTO monitor_status_tally (status, n) SELECT status, count(*) FROM monitors GROUP BY status")
    })

    static let sqliteScript = """
        CREATE TABLE monitor_status_tally (status TEXT NOT NULL, n INTEGER NOT NULL);
        CREATE TRIGGER monitors_tally_insert AFTER INSERT ON monitors BEGIN
            INSERT INTO monitor_status_tally (status, n) VALUES (new.status, 1);
        END;
        CREATE TRIGGER monitors_tally_delete AFTER DELETE ON monitors BEGIN
            INSERT INTO monitor_status_tally (status, n) VALUES (old.status, -1);
        END;
        CREATE TRIGGER monitors_tally_update AFTER UPDATE OF status ON monitors WHEN old.status IS NOT new.status BEGIN
            INSERT INTO monitor_status_tally (status, n) VALUES (old.status, -1), (new.status, 1);
        END;
        """

    /// The function's search path is the one it was created with, so it
    /// writes this schema's table whichever connection fires it (hubs in
    /// several schemas of one database, docs/postgres.md).
    static let postgresStatements = [
        "CREATE TABLE monitor_status_tally (status TEXT NOT NULL, n BIGINT NOT NULL)",
        """
        CREATE FUNCTION monitors_tally() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $tally$
        BEGIN
            IF TG_OP <> 'INSERT' THEN
                INSERT INTO monitor_status_tally (status, n) VALUES (OLD.status, -1);
            END IF;
            IF TG_OP <> 'DELETE' THEN
                INSERT INTO monitor_status_tally (status, n) VALUES (NEW.status, 1);
            END IF;
            RETURN NULL;
        END
        $tally$
        """,
        "CREATE TRIGGER monitors_tally AFTER INSERT OR DELETE ON monitors FOR EACH ROW EXECUTE FUNCTION monitors_tally()",
        """
        CREATE TRIGGER monitors_tally_update AFTER UPDATE OF status ON monitors FOR EACH ROW
        WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION monitors_tally()
        """,
    ]
}
