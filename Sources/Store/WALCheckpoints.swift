/// How a SQLite hub keeps its WAL short (`Checkpointer`). PostgreSQL has no
/// use for it.
public struct WALCheckpoints: Sendable {
    /// How often the background PASSIVE checkpoint runs.
    public var intervalMillis: Int
    /// WAL frames (pages) past which the writer finishes a checkpoint so the
    /// WAL starts over, when writes never pause long enough for it to start
    /// over by itself.
    public var restartFrames: Int

    public init(intervalMillis: Int, restartFrames: Int) {
        self.intervalMillis = intervalMillis
        self.restartFrames = restartFrames
    }

    /// Every 200 ms; a restart past 64 MB (16,384 frames at SQLite's 4 KB
    /// pages). Under a steady load of check results the writer pauses
    /// between batches, a background pass catches up and the WAL starts
    /// over by itself long before 64 MB; under a flood of pings it restarts
    /// at about 64 MB plus what one interval brings (80 MB measured).
    public static let standard = WALCheckpoints(intervalMillis: 200, restartFrames: 16_384)
}
