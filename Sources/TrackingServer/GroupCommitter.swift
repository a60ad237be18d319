import Foundation

/// Group commit: requests hand their rows to one writer thread, which commits whatever has
/// queued in one transaction once 1,000 rows are waiting or the oldest has waited 5 ms; each
/// request's completion is called (on that thread) only after the transaction holding its rows
/// has committed, or with the store's error. Requests are committed in arrival order, so a device's fixes reach the store
/// in the order they came (one ordered lane per device). After each batch's replies the writer
/// gives the store one turn of `settle` (a bounded transaction of its own upkeep), and more
/// turns while no request is waiting and the store has upkeep left.
///
/// A thread rather than a task: `PositionStore.commit` blocks (SQLite's fsync) and must not hold
/// a thread of the cooperative pool.
final class GroupCommitter: @unchecked Sendable {
    struct Pending {
        var rows: [StoredFix]
        var completion: @Sendable (Result<Int, any Error>) -> Void
        var arrived: Date
    }

    /// The batch closes at this many rows…
    let maximumRows: Int
    /// …or when its oldest request has waited this long.
    let maximumWait: TimeInterval
    let store: any PositionStore
    let metrics: TrackingMetrics
    /// Offered each committed batch, after its requests were resumed.
    let live: LiveFanOut
    /// Offered each committed batch after `live`, for its fence decisions (never waits).
    let fences: FenceMonitor?
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var queue: [Pending] = []
    private var queuedRows = 0
    private var stopping = false, ended = false
    private var thread: Thread?

    init(store: any PositionStore, metrics: TrackingMetrics, live: LiveFanOut = LiveFanOut(), fences: FenceMonitor? = nil,
         maximumRows: Int = 1000, maximumWait: Duration = .milliseconds(5)) {
        self.store = store
        self.metrics = metrics
        self.live = live
        self.fences = fences
        self.maximumRows = maximumRows
        self.maximumWait = Double(maximumWait.components.attoseconds) / 1e18 + Double(maximumWait.components.seconds)
        // The thread keeps the committer alive until `stop()` lets it end.
        let thread = Thread {
            nameKernelThread("group-commit")
            self.run()
        }
        thread.name = "group-commit"
        self.thread = thread
        thread.start()
    }

    /// Commits `rows` with the next batch; returns how many were new once the batch is durable.
    /// - Throws: the store's error (nothing of the batch was stored), or `StorageStopped`.
    func commit(_ rows: [StoredFix]) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in commit(rows) { continuation.resume(with: $0) } }
    }

    /// Commits `rows` with the next batch, then calls `completion` with how many were new once
    /// the batch is durable, or with the store's error (nothing of the batch was stored) or
    /// `StorageStopped`; on the writer thread (or this one when stopped), so it must not block.
    func commit(_ rows: [StoredFix], completion: @escaping @Sendable (Result<Int, any Error>) -> Void) {
        condition.lock()
        guard !stopping else {
            condition.unlock()
            completion(.failure(StorageStopped()))
            return
        }
        queue.append(Pending(rows: rows, completion: completion, arrived: Date()))
        queuedRows += rows.count
        // The writer waits for a first request, then for a full batch or the deadline: a
        // request that changes neither need not wake it (a futex wake and a context switch
        // per request, 1,000 times a batch at 20,000 requests/s).
        if queue.count == 1 || queuedRows - rows.count < maximumRows && queuedRows >= maximumRows { condition.signal() }
        condition.unlock()
    }

    struct StorageStopped: Error, CustomStringConvertible {
        var description: String { "the server is stopping" }
    }

    /// Commits what is queued, ends the writer thread, and returns once it has ended (at once
    /// on the writer thread itself). A server that returned from `stop` writes no more: a
    /// server started next on the same database (a restart) sees every fix this one committed.
    /// (Before, `stop` returned at once and a batch in flight could commit after a restarted
    /// server's SQLite store had read what `recent` holds at open: a retry of that batch's fix
    /// was then taken for new and stored twice.)
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        condition.broadcast()
        guard Thread.current !== thread else { return }
        while !ended { condition.wait() }
    }

    private func run() {
        // Whether the store's last `settle` turn did work (so it may have more).
        var settling = false
        while true {
            condition.lock()
            if queue.isEmpty && !stopping && settling {
                // Idle with upkeep left: one more turn, then look at the queue again.
                condition.unlock()
                settling = settle()
                continue
            }
            while queue.isEmpty && !stopping { condition.wait() }
            if queue.isEmpty {
                ended = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let deadline = queue[0].arrived.addingTimeInterval(maximumWait)
            while queuedRows < maximumRows && !stopping {
                if !condition.wait(until: deadline) { break }
            }
            var taken = 0, rowCount = 0
            while taken < queue.count, rowCount == 0 || rowCount + queue[taken].rows.count <= maximumRows {
                rowCount += queue[taken].rows.count
                taken += 1
            }
            let batch = Array(queue[..<taken])
            queue.removeFirst(taken)
            queuedRows -= rowCount
            condition.unlock()

            let started = Date()
            let rows = batch.flatMap(\.rows)
            do {
                let inserted = try store.commit(rows)
                metrics.committed(rows: rowCount, inserted: inserted, seconds: Date().timeIntervalSince(started))
                for pending in batch { pending.completion(.success(inserted)) }
                live.publish(rows)
                fences?.offer(rows)
            } catch {
                metrics.commitFailed()
                for pending in batch { pending.completion(.failure(error)) }
            }
            settling = settle()
        }
    }

    /// One turn of the store's upkeep; whether it did work.
    private func settle() -> Bool {
        let started = Date()
        do {
            let settled = try store.settle()
            if settled > 0 { metrics.settled(rows: settled, seconds: Date().timeIntervalSince(started)) }
            return settled > 0
        } catch {
            metrics.settleFailed()
            return false
        }
    }
}
