import Foundation
import GeoCore
import GRDB

/// Copies the pages the WAL holds into the database file from a connection and thread of its
/// own, every `interval`, so that the writer — which every request waits for — does not.
///
/// SQLite checkpoints at the commit that finds the WAL past `wal_autocheckpoint` pages, on the
/// committing connection: it writes those pages to the database file and syncs it (the
/// database file's fdatasync under tracking.sh 19,900 devices: p90 22 ms, max 379 ms, each a
/// stall of the writer). A PASSIVE checkpoint on another connection runs beside the writer
/// without blocking it (sqlite.org/wal.html §"Checkpointing", c3ref/wal_checkpoint_v2.html);
/// the writer then checkpoints only what came since this thread's last pass, when the WAL
/// passes `writerThresholdPages`, which also lets it start the WAL over from its beginning (a
/// WAL fully copied is restarted by the next write transaction).
final class SQLiteCheckpointer: @unchecked Sendable {
    /// The writer's `wal_autocheckpoint`, pages (4 KiB): 64 MiB of WAL.
    static let writerThresholdPages = 16_384

    private let queue: DatabaseQueue
    private let interval: TimeInterval
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var stopping = false, ended = false

    /// Opens a connection to the database at `path` (already in WAL mode) and starts the thread.
    init(path: String, interval: Duration = .milliseconds(100)) throws {
        queue = try DatabaseQueue(path: path)
        self.interval = interval.seconds
        let thread = Thread {
            nameKernelThread("wal-checkpoint")
            self.run()
        }
        thread.name = "wal-checkpoint"
        thread.start()
    }

    /// Ends the thread after the pass under way, and returns once it has ended.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        condition.broadcast()
        while !ended { condition.wait() }
    }

    private func run() {
        condition.lock()
        while !stopping {
            condition.unlock()
            // SQLITE_BUSY when the writer's own checkpoint runs: the next pass copies what it left.
            _ = try? queue.writeWithoutTransaction { db in try db.checkpoint(.passive) }
            condition.lock()
            if !stopping { _ = condition.wait(until: Date(timeIntervalSinceNow: interval)) }
        }
        ended = true
        condition.broadcast()
        condition.unlock()
    }
}
