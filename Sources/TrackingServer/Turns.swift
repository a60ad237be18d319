import DequeModule
import Synchronization

/// At most `maximum` of something at once (reads on a database's connections, read replies
/// holding fixes), the rest waiting for a turn: first come first served within one client,
/// and the clients that wait served in rotation (round robin, as fair queuing serves flows:
/// Demers, Keshav & Shenker, SIGCOMM 1989), so one client's many requests delay another's by
/// at most one turn each, not all of them: while one client's 40 cleaned device-day reads
/// (4 whole-track turns) were under way, another's took 3.2 and 4.5 s first come first served,
/// 0.8 and 0.4 s in rotation (release build, SQLite, loopback). The read API names a client by
/// its connection's address, so clients behind one proxy share a line.
final class Turns: Sendable {
    let maximum: Int
    private let state = Mutex(State())

    private struct State {
        var running = 0
        /// Each waiting client's callers, in order.
        var waiting: [String: Deque<CheckedContinuation<Void, Never>>] = [:]
        /// The clients in `waiting`, the next to be served first.
        var rotation = Deque<String>()
    }

    /// The turns under way.
    var running: Int { state.withLock { $0.running } }
    /// The callers waiting for a turn.
    var waiting: Int { state.withLock { $0.waiting.values.reduce(0) { $0 + $1.count } } }
    /// The clients with callers waiting for a turn.
    var waitingClients: Int { state.withLock { $0.rotation.count } }

    init(maximum: Int) {
        precondition(maximum > 0, "at least one turn at once")
        self.maximum = maximum
    }

    /// Returns once it is this caller's turn; `end()` ends it. `client` names whom the caller
    /// serves (a connection's peer address): its callers wait in its own line.
    func take(for client: String = "") async {
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                guard s.running < maximum else {
                    // A line is removed once empty: none means the client is not in rotation.
                    if s.waiting[client] == nil { s.rotation.append(client) }
                    s.waiting[client, default: []].append(turn)
                    return false
                }
                s.running += 1
                return true
            }
            if now { turn.resume() }
        }
    }

    /// Ends a turn: the first waiting caller of the next client in rotation takes it.
    func end() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let client = s.rotation.popFirst(), var line = s.waiting.removeValue(forKey: client) else { s.running -= 1; return nil }
            let turn = line.removeFirst()
            if !line.isEmpty {
                s.waiting[client] = line
                s.rotation.append(client)
            }
            return turn
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

    /// A turn (`take(for:)`) that ends when the returned `Turn` is let go of: for one a reply's
    /// body holds, which the server drops unrun when its client has gone.
    func turn(for client: String = "") async -> Turn {
        await take(for: client)
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
