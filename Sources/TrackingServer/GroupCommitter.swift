import Foundation
import GeoCore
import NIOCore
import Synchronization

/// What the group committer hands each committed batch to after the ack, in commit order:
/// the fence decisions (`FenceMonitor`) and live matching (`LiveMatching`). Taking it must never
/// wait. They also take the latest positions other instances' batches name
/// (`PositionStore.followOtherInstances`), so each instance follows every device, wherever its
/// fixes were sent.
protocol AfterAck: Sendable {
    /// `acknowledged`: when the batch was, to measure the work after it; nil for another
    /// instance's batch.
    func offer(_ rows: [StoredFix], acknowledged: Date?)
}

/// Group commit: requests hand their rows to a writer thread, which commits whatever has
/// queued in one transaction once 1,000 rows are waiting or the oldest has waited 5 ms; each
/// request's completion is called (on that thread, or on the event loop it names) only after the
/// transaction holding its rows has committed, or with the store's error. Batches are taken in
/// arrival order, so with one writer a device's fixes reach the store in the order they came
/// (one ordered lane per device).
///
/// A store that overlaps transactions (`PositionStore.concurrentCommits`, PostgreSQL) gets that
/// many writers: the next batch closes and commits while the one before is still in flight, so
/// a request waits for its own commit, not for the one ahead of it too. Two batches in flight
/// may commit in either order, which the store's rules allow (a fix's key makes it unique; the
/// latest position only moves forwards); the committed batches still reach `live` and `afterAck`
/// one at a time in the order they were taken.
///
/// After each batch's replies the first writer gives the store one turn of `settle` (a bounded
/// transaction of its own upkeep), and more turns while no request is waiting and the store has
/// upkeep left; idle, one turn a second (`idleUpkeep`), so upkeep that comes due while nothing is
/// sent (a slot of fixes to move, an hour to merge) is done.
///
/// Threads rather than tasks: `PositionStore.commit` blocks (SQLite's fsync, a PostgreSQL round
/// trip) and must not hold a thread of the cooperative pool.
final class GroupCommitter: @unchecked Sendable {
    struct Pending {
        var rows: [StoredFix]
        /// Where `completion` is called: an event loop, or nil for the writer thread.
        var loop: (any EventLoop)?
        var completion: @Sendable (Result<Int, any Error>) -> Void
        var arrived: Date
    }

    /// The batch closes at this many rows…
    let maximumRows: Int
    /// …or when its oldest request has waited this long.
    let maximumWait: TimeInterval
    let store: any PositionStore
    /// Which of the store's `commitParts` this committer writes, and of how many (for the log
    /// of failures: `StoreFailureLog.Where`).
    let part: (index: Int, of: Int)
    let metrics: TrackingMetrics
    /// Offered each committed batch, after its requests' completions were called or handed to
    /// their event loops.
    let live: LiveFanOut
    /// Offered each committed batch after `live`, in this order: its fence decisions and live
    /// matching (`AfterAck`, never waits).
    let afterAck: [any AfterAck]
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var queue: [Pending] = []
    private var queuedRows = 0
    /// The number the next batch taken gets (its place in `published`'s order).
    private var batchesTaken = 0
    private var stopping = false, endedWriters = 0
    private var writers: [Thread] = []
    /// Committed batches waiting for those taken before them, so that `live` and `afterAck` get
    /// them in the order they were taken; held while offering them, so one writer offers at a time.
    private let published = Mutex(Published())

    struct Published {
        /// The number of the next batch to offer.
        var next = 0
        /// Batches committed out of turn, by number; nil for a batch that failed.
        var waiting: [Int: [StoredFix]?] = [:]
    }

    init(store: any PositionStore, part: (index: Int, of: Int) = (0, 1), metrics: TrackingMetrics, live: LiveFanOut = LiveFanOut(),
         afterAck: [any AfterAck] = [], maximumRows: Int = 1000, maximumWait: Duration = .milliseconds(5)) {
        self.store = store
        self.part = part
        self.metrics = metrics
        self.live = live
        self.afterAck = afterAck
        self.maximumRows = maximumRows
        self.maximumWait = maximumWait.seconds
        // The threads keep the committer alive until `stop()` lets them end. The first is
        // "group-commit" (the one thread every fix goes through with one writer), the others
        // "group-commit-2"… (a kernel thread's name has at most 15 characters).
        condition.lock()
        defer { condition.unlock() }
        for index in 0..<max(1, store.concurrentCommits) {
            let name = index == 0 ? "group-commit" : "group-commit-\(index + 1)"
            let thread = Thread {
                nameKernelThread(name)
                self.run(upkeep: index == 0)
            }
            thread.name = name
            writers.append(thread)
            thread.start()
        }
    }

    /// Commits `rows` with the next batch; returns how many were new once the batch is durable.
    /// - Throws: the store's error (nothing of the batch was stored), or `StorageStopped`.
    func commit(_ rows: [StoredFix]) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in commit(rows) { continuation.resume(with: $0) } }
    }

    /// Commits `rows` with the next batch, then calls `completion` with how many were new once
    /// the batch is durable, or with the store's error (nothing of the batch was stored) or
    /// `StorageStopped`: on `loop` when one is given, else on the writer thread (or this one
    /// when stopped), where it must not block.
    func commit(_ rows: [StoredFix], completingOn loop: (any EventLoop)? = nil, completion: @escaping @Sendable (Result<Int, any Error>) -> Void) {
        condition.lock()
        guard !stopping else {
            condition.unlock()
            completion(.failure(StorageStopped()))
            return
        }
        queue.append(Pending(rows: rows, loop: loop, completion: completion, arrived: Date()))
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

    /// Commits what is queued, ends the writer threads, and returns once they have ended (at
    /// once on a writer thread itself). A server that returned from `stop` writes no more: a
    /// server started next on the same database (a restart) sees every fix this one committed.
    /// (Before, `stop` returned at once and a batch in flight could commit after a restarted
    /// server's SQLite store had read what `recent` holds at open: a retry of that batch's fix
    /// was then taken for new and stored twice.)
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        condition.broadcast()
        guard !writers.contains(where: { $0 === Thread.current }) else { return }
        while endedWriters < writers.count { condition.wait() }
    }

    /// Seconds idle between two turns of the store's upkeep.
    static let idleUpkeep: TimeInterval = 1

    /// One writer's loop; `upkeep`: whether it gives the store its `settle` turns.
    private func run(upkeep: Bool) {
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
            while queue.isEmpty && !stopping {
                if !condition.wait(until: Date().addingTimeInterval(Self.idleUpkeep)) && upkeep { break }
            }
            if queue.isEmpty && !stopping {
                condition.unlock()
                settling = settle()
                continue
            }
            if queue.isEmpty {
                endedWriters += 1
                condition.broadcast()
                condition.unlock()
                return
            }
            // Until the batch is full or its oldest request's deadline. Another writer may take
            // the queue meanwhile: the deadline is then the new oldest one's, and a writer that
            // finds the queue empty goes back to waiting (before, it committed an empty batch).
            while !stopping, let oldest = queue.first, queuedRows < maximumRows {
                let deadline = oldest.arrived.addingTimeInterval(maximumWait)
                if Date() >= deadline { break }
                _ = condition.wait(until: deadline)
            }
            if queue.isEmpty {
                condition.unlock()
                continue
            }
            var taken = 0, rowCount = 0
            while taken < queue.count, rowCount == 0 || rowCount + queue[taken].rows.count <= maximumRows {
                rowCount += queue[taken].rows.count
                taken += 1
            }
            let batch = Array(queue[..<taken])
            queue.removeFirst(taken)
            queuedRows -= rowCount
            let number = batchesTaken
            batchesTaken += 1
            // What is left may be taken by another writer now (no request arriving may signal).
            if !queue.isEmpty { condition.signal() }
            condition.unlock()

            let started = Date()
            let rows = batch.flatMap(\.rows)
            do {
                let inserted = try store.commit(rows)
                metrics.committed(rows: rowCount, inserted: inserted, seconds: Date().timeIntervalSince(started),
                                  queueWaits: batch.lazy.map { started.timeIntervalSince($0.arrived) })
                metrics.storeSucceeded(.commit, part: part.index, of: part.of)
                Self.complete(batch, with: .success(inserted))
                offer(rows, number: number)
            } catch {
                metrics.storeFailed(.commit, error, part: part.index, of: part.of)
                Self.complete(batch, with: .failure(error))
                offer(nil, number: number)
            }
            if upkeep { settling = settle() }
        }
    }

    /// Offers batch `number`'s committed rows (nil: it failed) to `live` and `afterAck` once every
    /// batch taken before it was offered, with the batches after it that were waiting for it.
    private func offer(_ rows: [StoredFix]?, number: Int) {
        published.withLock { order in
            order.waiting[number] = .some(rows)
            while let next = order.waiting.removeValue(forKey: order.next) {
                order.next += 1
                guard let committed = next else { continue }
                live.publish(committed)
                for consumer in afterAck { consumer.offer(committed, acknowledged: Date()) }
            }
        }
    }

    /// Calls the completions of `batch`, in order: those without a loop here, the others in one
    /// task per event loop for the whole batch. (A completion per request handed to its loop
    /// was a lock, a task and often an eventfd wake-up of the loop per request: 20,000 a second
    /// at 20,000 devices, against one per loop per commit.)
    private static func complete(_ batch: [Pending], with result: Result<Int, any Error>) {
        var loops: [(loop: any EventLoop, completions: [@Sendable (Result<Int, any Error>) -> Void])] = []
        for pending in batch {
            guard let loop = pending.loop else {
                pending.completion(result)
                continue
            }
            if let k = loops.firstIndex(where: { $0.loop === loop }) {
                loops[k].completions.append(pending.completion)
            } else {
                loops.append((loop, [pending.completion]))
            }
        }
        for (loop, completions) in loops {
            loop.execute { for completion in completions { completion(result) } }
        }
    }

    /// One turn of the store's upkeep; whether it did work.
    private func settle() -> Bool {
        let started = Date()
        do {
            let settled = try store.settle()
            if settled > 0 { metrics.settled(rows: settled, seconds: Date().timeIntervalSince(started)) }
            metrics.storeSucceeded(.settle, part: part.index, of: part.of)
            return settled > 0
        } catch {
            metrics.storeFailed(.settle, error, part: part.index, of: part.of)
            return false
        }
    }
}
