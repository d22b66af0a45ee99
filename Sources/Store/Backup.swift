import CSQLite

/// SQLite's online backup API, used by `Database.backup`.
enum Backup {
    /// Copies the "main" database of `source` (a connection inside a read
    /// transaction, so it copies that snapshot) into a new file at `path`.
    static func copy(from source: OpaquePointer, toFile path: String) throws(StoreError) {
        var dst: OpaquePointer?
        let rc = sqlite3_open_v2(path, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let dst else {
            let err = StoreError.last(dst, fallback: rc)
            sqlite3_close_v2(dst)
            throw err
        }
        defer { sqlite3_close_v2(dst) }
        guard let b = sqlite3_backup_init(dst, "main", source, "main") else {
            throw StoreError.last(dst)
        }
        // -1: copy every page in one step. The source connection already holds
        // its read snapshot, so writers keep going meanwhile and the copy
        // never restarts.
        let step = sqlite3_backup_step(b, -1)
        let finish = sqlite3_backup_finish(b)
        guard step == SQLITE_DONE else {
            throw StoreError(code: step, message: "backup step: \(String(cString: sqlite3_errstr(step)))")
        }
        guard finish == SQLITE_OK else { throw StoreError.last(dst, fallback: finish) }
        // The copied header says WAL; switch the copy to a rollback journal so
        // the backup is one self-contained file.
        var err: UnsafeMutablePointer<CChar>?
        let jrc = sqlite3_exec(dst, "PRAGMA journal_mode = DELETE", nil, nil, &err)
        if jrc != SQLITE_OK {
            let message = err.map { String(cString: $0) } ?? "journal_mode"
            sqlite3_free(err)
            throw StoreError(code: jrc, message: "backup: \(message)")
        }
    }
}
