import Foundation

/// A bounded first-in-first-out queue between callers that hand work over without waiting and
/// one thread that takes it in order: `FenceMonitor` decides committed batches on its thread,
/// `FenceWebhook` posts events from its own. Work that blocks (a store's fsync, a webhook that
/// does not answer) thus never holds a thread of the cooperative pool nor delays an ack.
final class WorkQueue<Item>: @unchecked Sendable {
    /// What `take` still returns after `stop()`.
    enum Stop {
        /// The items queued before `stop()`, then nil.
        case afterQueued
        /// Nil at once: what is queued is dropped.
        case now
    }

    /// At most this many items wait; `put` refuses the rest.
    let capacity: Int
    let stopRule: Stop
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var items: [Item] = []
    private var stopping = false

    init(capacity: Int, stop: Stop) {
        self.capacity = max(capacity, 1)
        self.stopRule = stop
    }

    /// Queues as many of `new` as fit, in order; returns how many it refused (no room, or
    /// stopped), for the caller to count as dropped. Never waits.
    func put(_ new: [Item]) -> Int {
        condition.lock()
        defer { condition.unlock() }
        let room = stopping ? 0 : min(new.count, capacity - items.count)
        items += new.prefix(room)
        if room > 0 { condition.signal() }
        return new.count - room
    }

    /// The next items in order, at most `limit` (≥ 1); waits until there are some. Nil once
    /// stopped (with `.afterQueued`, once the queued items were taken).
    func take(upTo limit: Int) -> [Item]? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !stopping { condition.wait() }
        if stopping && (stopRule == .now || items.isEmpty) { return nil }
        let taken = Array(items.prefix(max(limit, 1)))
        items.removeFirst(taken.count)
        return taken
    }

    /// Waits `seconds`, less if `stop()` comes first; whether the queue is still running.
    func pause(_ seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while !stopping, condition.wait(until: deadline) {}
        return !stopping
    }

    /// Wakes the taking thread to end (`Stop`); later `put`s are refused.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }
}
