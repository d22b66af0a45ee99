/// Queries on `recovery_codes` (2FA fallback codes, stored as SHA-256 only)
/// and on the TOTP columns of `users`.
public enum RecoveryCodes {
    /// Replaces the user's codes with these hashes.
    public static func replace(_ c: Connection, userID: Int64, hashes: [[UInt8]]) throws(StoreError) {
        try c.execute("DELETE FROM recovery_codes WHERE user_id = ?", [.integer(userID)])
        for h in hashes {
            try c.execute("INSERT INTO recovery_codes (user_id, code_hash) VALUES (?, ?)", [.integer(userID), .blob(h)])
        }
    }

    /// Marks the unused code with that hash as used; false when there is
    /// none (unknown or already used). One UPDATE, so two logins racing with
    /// the same code cannot both succeed.
    public static func consume(_ c: Connection, userID: Int64, hash: [UInt8], at: Int64) throws(StoreError) -> Bool {
        try c.execute("""
            UPDATE recovery_codes SET used_at = ?
            WHERE id = (SELECT id FROM recovery_codes WHERE user_id = ? AND code_hash = ? AND used_at IS NULL LIMIT 1)
            """, [.integer(at), .integer(userID), .blob(hash)])
        return c.changes > 0
    }

    public static func remaining(_ c: Connection, userID: Int64) throws(StoreError) -> Int {
        guard case .integer(let n)? = try c.scalar(
            "SELECT count(*) FROM recovery_codes WHERE user_id = ? AND used_at IS NULL", [.integer(userID)]) else { return 0 }
        return Int(n)
    }

    public static func deleteAll(_ c: Connection, userID: Int64) throws(StoreError) {
        try c.execute("DELETE FROM recovery_codes WHERE user_id = ?", [.integer(userID)])
    }

    /// Stores a secret: pending (`enabled` false, while enrolment awaits its
    /// first code), on, or nil to turn 2FA off. Resets the replay marker.
    public static func setTOTP(_ c: Connection, userID: Int64, secret: String?, enabled: Bool, now: Int64) throws(StoreError) {
        try c.execute("""
            UPDATE users SET totp_secret = ?, totp_enabled = ?, totp_last_step = NULL, updated_at = ? WHERE id = ?
            """, [SQLValue(secret), .integer(enabled ? 1 : 0), .integer(now), .integer(userID)])
        c.changedCredentials = true
    }

    /// Records `step` as spent if it is newer than the last spent one; false
    /// means a replay (this step or an earlier one was already used).
    public static func spendTOTPStep(_ c: Connection, userID: Int64, step: Int64) throws(StoreError) -> Bool {
        try c.execute("""
            UPDATE users SET totp_last_step = ? WHERE id = ? AND (totp_last_step IS NULL OR totp_last_step < ?)
            """, [.integer(step), .integer(userID), .integer(step)])
        return c.changes > 0
    }
}
