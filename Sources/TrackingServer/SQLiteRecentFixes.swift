/// The writer's memory of the `recent` table (`SQLitePositionStore`): every fix waiting there by
/// device, and the round moving the oldest of them to `positions`, so that a move needs no scan
/// of `recent` and a commit no query to skip a retry.
extension SQLitePositionStore {
    /// What makes a fix unique: device id, fix time (ms), payload hash.
    struct FixKey: Hashable {
        var id: Int64
        var fixTime: Int64
        var payloadHash: Int64

        init(id: Int64, fixTime: Int64, payloadHash: Int64) {
            self.id = id
            self.fixTime = fixTime
            self.payloadHash = payloadHash
        }

        init(_ id: Int64, _ fix: StoredFix) {
            self.init(id: id, fixTime: fix.fixTime, payloadHash: fix.payloadHash)
        }
    }

    /// A fix of `recent` with the batch (commit) that appended it.
    struct Held {
        var fix: StoredFix
        var batch: Int64
    }

    /// A device's fixes waiting in `recent`, in the order they were committed.
    struct Waiting {
        var held: [Held] = []
        /// The greatest fix time in `held`: a fix of the device above it is not in `recent`.
        var newest: Int64 = .min

        /// Appends fixes committed in `batch`, lowering `oldest` to the least of their times.
        mutating func append(_ fixes: some Collection<StoredFix>, batch: Int64, oldest: inout Int64) {
            for fix in fixes {
                held.append(Held(fix: fix, batch: batch))
                newest = max(newest, fix.fixTime)
                oldest = min(oldest, fix.fixTime)
            }
        }
    }

    /// The fixes in `recent`, in memory, so that a move needs no scan of it and a commit no
    /// query to skip a retry. Grouped by device, so that a commit asks one dictionary once a
    /// device whether a fix is held (a device's fixes mostly come in time order, newer than
    /// any it holds; a retry or late fix searches that device's fixes only). A set of every
    /// key took a hash and a cache miss at each commit, append and delete of a fix: 12 % of the
    /// writer thread's perf samples under tracking.sh, 1,000 Overland devices × batches of 100,
    /// once the rows were bound without GRDB's arguments (`SQLiteFixInsert`).
    struct MoveState {
        /// Fixes below it are in the current round, or in `positions`; never decreases.
        var boundary: Int64 = .min
        /// Fixes at or above `boundary`, by device id.
        var waiting: [Int64: Waiting] = [:]
        /// The least fix time in `waiting` (`Int64.max` when empty).
        var oldestWaiting: Int64 = .max
        /// The round: fixes below `boundary`, by device id ascending; `copied` devices are in
        /// `positions`. Empty when no round is under way.
        var round: [(id: Int64, fixes: [StoredFix])] = []
        var copied = 0
        /// The greatest batch holding a fix of the round: its delete reads `recent` up to it.
        var roundLastBatch: Int64 = .min
        /// The round's fixes in batches below it are deleted from `recent`.
        var deletedBelow: Int64 = .min
        /// The batch the next commit appends to `recent`: above every batch there.
        var nextBatch: Int64 = 0

        /// Whether `recent` holds a fix of device `id` with this fix time and payload hash
        /// (waiting, or in the round). `device` is `waiting[id]` when the caller has it.
        func holds(_ fix: StoredFix, id: Int64, device: Waiting?) -> Bool {
            let same = { (other: StoredFix) in other.fixTime == fix.fixTime && other.payloadHash == fix.payloadHash }
            if fix.fixTime >= boundary {
                guard let device, fix.fixTime <= device.newest else { return false }
                return device.held.contains { same($0.fix) }
            }
            // Below the boundary: in the round (by device id ascending), or not in `recent`.
            var low = 0, high = round.count
            while low < high {
                let middle = (low + high) / 2
                if round[middle].id < id { low = middle + 1 } else { high = middle }
            }
            return low < round.count && round[low].id == id && round[low].fixes.contains(where: same)
        }

        mutating func wait(_ fix: StoredFix, id: Int64, batch: Int64) {
            wait(CollectionOfOne(fix), id: id, batch: batch)
        }

        /// Adds fixes of device `id` committed in `batch`.
        mutating func wait(_ fixes: some Collection<StoredFix>, id: Int64, batch: Int64) {
            guard !fixes.isEmpty else { return }
            var oldest = oldestWaiting
            waiting[id, default: Waiting()].append(fixes, batch: batch, oldest: &oldest)
            oldestWaiting = oldest
            nextBatch = max(nextBatch, batch + 1)
        }

        /// Begins a round of the fixes below `cut` in `waiting`.
        mutating func begin(cut: Int64) {
            boundary = max(boundary, cut)
            var oldest = Int64.max
            for (id, device) in waiting {
                let old = device.held.filter { $0.fix.fixTime < boundary }
                guard !old.isEmpty else {
                    oldest = min(oldest, device.held.lazy.map(\.fix.fixTime).min() ?? .max)
                    continue
                }
                let kept = device.held.filter { $0.fix.fixTime >= boundary }
                oldest = min(oldest, kept.lazy.map(\.fix.fixTime).min() ?? .max)
                round.append((id, old.map(\.fix)))
                roundLastBatch = max(roundLastBatch, old.lazy.map(\.batch).max() ?? .min)
                waiting[id] = kept.isEmpty ? nil : Waiting(held: kept, newest: device.newest)
            }
            oldestWaiting = oldest
            round.sort { $0.id < $1.id }
            copied = 0
        }

        /// Forgets the round, deleted from `recent`.
        mutating func end() {
            round = []
            copied = 0
            roundLastBatch = .min
            deletedBelow = .min
        }

        /// Forgets the fixes before `cut` (retention).
        mutating func remove(before cut: Int64) {
            for (id, device) in waiting {
                let kept = device.held.filter { $0.fix.fixTime >= cut }
                waiting[id] = kept.isEmpty ? nil : Waiting(held: kept, newest: device.newest)
            }
            oldestWaiting = waiting.values.lazy.flatMap(\.held).map(\.fix.fixTime).min() ?? .max
            for i in round.indices { round[i].fixes.removeAll { $0.fixTime < cut } }
        }
    }
}
