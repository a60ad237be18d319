import NIOCore
import Synchronization

/// A group committer (`GroupCommitter`) for each part of the store that commits on its own
/// (`PositionStore.commitParts`: a sharded store's databases), so that a part that is slow or
/// down holds back only the requests of its own devices. With one batch queue for all parts, a
/// stopped shard failed every batch it had a row in, and at 1 Hz from many devices that is
/// nearly every batch: the healthy shard's devices got 503 too.
///
/// A device's fixes always go to the same part, so its lane stays ordered. A request whose
/// fixes span parts completes once every part has committed them, or with a part's error; the
/// parts that committed stay stored, and the client's retry skips them (`ON CONFLICT DO NOTHING`).
final class PartCommitters: Sendable {
    let store: any PositionStore
    let parts: [GroupCommitter]

    init(store: any PositionStore, metrics: TrackingMetrics, live: LiveFanOut, afterAck: [any AfterAck], maximumRows: Int, maximumWait: Duration) {
        self.store = store
        let stores = store.commitParts
        parts = stores.enumerated().map { k, part in
            GroupCommitter(store: part, part: (k, stores.count), metrics: metrics, live: live, afterAck: afterAck,
                           maximumRows: maximumRows, maximumWait: maximumWait)
        }
    }

    /// `GroupCommitter.commit(_:completingOn:completion:)` through the parts that store `rows`:
    /// `completion` gets the new rows of all of them, or the first error.
    func commit(_ rows: [StoredFix], completingOn loop: (any EventLoop)?, completion: @escaping @Sendable (Result<Int, any Error>) -> Void) {
        guard parts.count > 1 else { return parts[0].commit(rows, completingOn: loop, completion: completion) }
        var byPart: [Int: [StoredFix]] = [:]
        for row in rows { byPart[store.commitPart(of: row.device), default: []].append(row) }
        if byPart.count == 1, let (part, rows) = byPart.first { return parts[part].commit(rows, completingOn: loop, completion: completion) }
        let join = Join(parts: byPart.count)
        for (part, rows) in byPart {
            parts[part].commit(rows, completingOn: loop) { result in
                if let all = join.add(result) { completion(all) }
            }
        }
    }

    /// The answers of a request's parts, gathered.
    private final class Join: Sendable {
        private let state: Mutex<(left: Int, inserted: Int, error: (any Error)?)>

        init(parts: Int) { state = Mutex((parts, 0, nil)) }

        /// Adds one part's answer; the request's, once it was the last.
        func add(_ result: Result<Int, any Error>) -> Result<Int, any Error>? {
            state.withLock { s in
                switch result {
                case .success(let inserted): s.inserted += inserted
                case .failure(let error): s.error = s.error ?? error
                }
                s.left -= 1
                guard s.left == 0 else { return nil }
                return s.error.map { .failure($0) } ?? .success(s.inserted)
            }
        }
    }

    /// `GroupCommitter.stop()` of every part.
    func stop() {
        for part in parts { part.stop() }
    }
}
