import DequeModule
import Synchronization

/// At most `maximum` of something at once (reads on a database's connections, read replies
/// holding fixes), the rest waiting for a turn, first come first served.
final class Turns: Sendable {
    let maximum: Int
    private let state = Mutex(State())

    private struct State {
        var running = 0
        var waiting = Deque<CheckedContinuation<Void, Never>>()
    }

    /// The turns under way.
    var running: Int { state.withLock { $0.running } }
    /// The callers waiting for a turn.
    var waiting: Int { state.withLock { $0.waiting.count } }

    init(maximum: Int) {
        precondition(maximum > 0, "at least one turn at once")
        self.maximum = maximum
    }

    /// Returns once it is this caller's turn; `end()` ends it.
    func take() async {
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                guard s.running < maximum else { s.waiting.append(turn); return false }
                s.running += 1
                return true
            }
            if now { turn.resume() }
        }
    }

    /// Ends a turn: the first waiting caller takes it.
    func end() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard !s.waiting.isEmpty else { s.running -= 1; return nil }
            return s.waiting.removeFirst()
        }
        next?.resume()
    }

    /// A turn at once when one is free (then nobody waits: `end()` hands a turn to a waiting
    /// caller), else nil: for work worth doing only without waiting (a read ahead).
    func turnIfFree() -> Turn? {
        let free = state.withLock { s -> Bool in
            guard s.running < maximum else { return false }
            s.running += 1
            return true
        }
        return free ? Turn(of: self) : nil
    }

    /// A turn that ends when the returned `Turn` is let go of: for one a reply's body holds,
    /// which the server drops unrun when its client has gone.
    func turn() async -> Turn {
        await take()
        return Turn(of: self)
    }
}

/// A turn of `Turns`, ended by `end()` or, at the latest, when this is let go of.
final class Turn: Sendable {
    private let turns: Turns
    private let ended = Atomic(false)
    fileprivate init(of turns: Turns) { self.turns = turns }

    /// Ends the turn (once; later calls do nothing).
    func end() {
        if !ended.exchange(true, ordering: .relaxed) { turns.end() }
    }

    deinit { end() }
}
