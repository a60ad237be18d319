import Synchronization

/// The store's failures as lines for the operator's log, few enough to read: the first failure of
/// an operation after it succeeded is noted at once with its error, then at most one line a
/// minute while it keeps failing (how many failed since the last line, and the latest error),
/// and one when it succeeds again (how long it failed, how many times). A database that goes
/// away for a minute under 20,000 fixes a second fails some 12,000 commits: `/metrics` counts
/// each (`tracking_commit_failures_total`), the log says what happened in three lines.
final class StoreFailureLog: Sendable {
    /// What the store was asked to do.
    enum Operation: Int, CaseIterable, Sendable {
        case commit, settle, retention, fenceEvents

        var name: String {
            switch self {
            case .commit: "commits"
            case .settle: "upkeep transactions"
            case .retention: "retention passes"
            case .fenceEvents: "fence event reads and writes"
            }
        }
    }

    /// The least time between two lines of an operation that keeps failing.
    static let interval = Duration.seconds(60)

    struct Failing {
        /// The first failure since the operation last succeeded.
        var since: ContinuousClock.Instant
        /// The last line noted.
        var noted: ContinuousClock.Instant
        /// Failures since `since`, and since `noted`.
        var total = 1, sinceNoted = 0
    }

    /// An operation on one part of the store (`PositionStore.commitParts`): with shards, one
    /// failing while another succeeds is one outage, not a line at every turn between them.
    struct Where: Hashable, Sendable {
        var operation: Operation
        /// The part's index in `commitParts`, and how many there are.
        var part = 0, parts = 1

        var name: String { parts > 1 ? "\(operation.name) on shard \(part + 1) of \(parts)" : operation.name }
    }

    private let note: @Sendable (String) -> Void
    /// The failing operations; one that succeeds has no entry.
    private let failing = Mutex([Where: Failing]())

    init(note: @escaping @Sendable (String) -> Void) {
        self.note = note
    }

    func failed(_ operation: Operation, _ error: any Error, part: Int = 0, of parts: Int = 1, at now: ContinuousClock.Instant = .now) {
        let key = Where(operation: operation, part: part, parts: parts)
        let line = failing.withLock { states -> String? in
            guard var state = states[key] else {
                states[key] = Failing(since: now, noted: now)
                return "store: \(key.name) failing: \(error)"
            }
            state.total += 1
            state.sinceNoted += 1
            defer { states[key] = state }
            guard now - state.noted >= Self.interval else { return nil }
            let seconds = Int((now - state.noted) / .seconds(1))
            state.noted = now
            defer { state.sinceNoted = 0 }
            return "store: \(key.name) still failing, \(state.sinceNoted) more in \(seconds) s: \(error)"
        }
        if let line { note(line) }
    }

    func succeeded(_ operation: Operation, part: Int = 0, of parts: Int = 1, at now: ContinuousClock.Instant = .now) {
        let key = Where(operation: operation, part: part, parts: parts)
        let line = failing.withLock { states -> String? in
            guard let state = states.removeValue(forKey: key) else { return nil }
            let seconds = Double((now - state.since) / .milliseconds(100)).rounded() / 10
            return "store: \(key.name) succeed again after \(state.total) failures in \(seconds) s"
        }
        if let line { note(line) }
    }
}
