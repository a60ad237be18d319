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
        /// The least fix time in `held` (`Int64.max` when empty).
        var oldest: Int64 = .max

        init(held: [Held] = [], newest: Int64 = .min) {
            self.held = held
            self.newest = newest
            oldest = held.lazy.map(\.fix.fixTime).min() ?? .max
        }

        /// Appends fixes committed in `batch`.
        mutating func append(_ fixes: some Collection<StoredFix>, batch: Int64) {
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
        /// Fixes not yet taken by the round, by device id: those at or above `boundary`, and
        /// those below it of the round's devices not yet split (`split`).
        var waiting: [Int64: Waiting] = [:]
        /// The least fix time in `waiting` once the round's devices are split (`Int64.max`
        /// when empty); before that, of the fixes at or above `boundary` of the devices split.
        var oldestWaiting: Int64 = .max
        /// The round: the devices with fixes below `boundary` at its beginning, by id ascending,
        /// with those fixes once split from `waiting` (the first `split`); the first `copied`
        /// are in `positions`. Empty when no round is under way.
        var round: [(id: Int64, fixes: [StoredFix])] = []
        /// A round's devices are split from `waiting` as the copies reach them, not all at its
        /// beginning: splitting 12,000 devices' fixes there held the writer 62–102 ms (tracking.sh
        /// on a shared machine), every request of the moment waiting behind it.
        var split = 0
        var copied = 0
        /// The greatest batch holding a fix of the round's split devices: its delete, which
        /// begins once all are split and copied, reads `recent` up to it.
        var roundLastBatch: Int64 = .min
        /// The round's fixes in batches below it are deleted from `recent`.
        var deletedBelow: Int64 = .min
        /// The batch the next commit appends to `recent`: above every batch there.
        var nextBatch: Int64 = 0
        /// Hours below it are in `positions` (or being merged there, `merge`): a fix of such an
        /// hour goes there directly. 0 (1970) when no hour was merged.
        var mergedBelow: Int64 = 0
        /// Hours below it may have rows in `positions` (its greatest at open, plus 1): above
        /// `mergedBelow` only in a file carried over from the layout keyed device first, whose
        /// hour of the boundary is partly there.
        var positionsEnd: Int64 = 0
        /// The merge of hour `mergedBelow - 1` from `slots` into `positions` under way, or nil.
        var merge: HourMerge?
        /// The devices with fixes in `slots`, by hour, for hours at or after `trackedFrom`, whose
        /// every slot row this store wrote (a merge then visits these devices, not every one).
        var slotDevices: [Int64: Set<Int64>] = [:]
        var trackedFrom: Int64 = 0
        /// `settle` looks for an hour to merge from this time on (ms since 1970): when the least
        /// hour in `slots` will be `mergeAfter` over; `.max` when `slots` is empty or the hour
        /// waits for a round; `.min` (at once) after rows went into `slots`.
        var mergeLookAfter: Int64 = .min

        /// Whether `recent` holds a fix of device `id` with this fix time and payload hash
        /// (waiting, or in the round). `device` is `waiting[id]` when the caller has it.
        func holds(_ fix: StoredFix, id: Int64, device: Waiting?) -> Bool {
            let same = { (other: StoredFix) in other.fixTime == fix.fixTime && other.payloadHash == fix.payloadHash }
            if let device, fix.fixTime <= device.newest, fix.fixTime >= device.oldest, device.held.contains(where: { same($0.fix) }) {
                return true
            }
            guard fix.fixTime < boundary else { return false }
            // Below the boundary: in the round (by device id ascending) once split, or not in `recent`.
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
            waiting[id, default: Waiting()].append(fixes, batch: batch)
            oldestWaiting = min(oldestWaiting, fixes.lazy.map(\.fixTime).min()!)
            nextBatch = max(nextBatch, batch + 1)
        }

        /// Begins a round of the fixes below `cut` in `waiting`: lists their devices, whose
        /// fixes `split(through:)` then takes. O(devices), no fix copied.
        mutating func begin(cut: Int64) {
            boundary = max(boundary, cut)
            var oldest = Int64.max
            for (id, device) in waiting {
                if device.oldest < boundary {
                    round.append((id, []))
                } else {
                    oldest = min(oldest, device.oldest)
                }
            }
            oldestWaiting = oldest
            round.sort { $0.id < $1.id }
            split = 0
            copied = 0
        }

        /// Takes the fixes below `boundary` of the round's devices up to index `last` from
        /// `waiting` into the round.
        mutating func split(through last: Int) {
            while split <= last {
                let id = round[split].id
                if let device = waiting[id] {
                    let old = device.held.filter { $0.fix.fixTime < boundary }
                    let kept = device.held.filter { $0.fix.fixTime >= boundary }
                    round[split].fixes = old.map(\.fix)
                    roundLastBatch = max(roundLastBatch, old.lazy.map(\.batch).max() ?? .min)
                    waiting[id] = kept.isEmpty ? nil : Waiting(held: kept, newest: device.newest)
                    oldestWaiting = min(oldestWaiting, waiting[id]?.oldest ?? .max)
                }
                split += 1
            }
        }

        /// Notes that device `id` has fixes in `slots` of `hour`.
        mutating func noteSlot(hour: Int64, device id: Int64) {
            if hour >= trackedFrom { slotDevices[hour, default: []].insert(id) }
            mergeLookAfter = .min
        }

        /// Forgets the round, deleted from `recent`.
        mutating func end() {
            round = []
            split = 0
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
            let boundary = boundary
            oldestWaiting = waiting.values.lazy.flatMap(\.held).map(\.fix.fixTime).filter { $0 >= boundary }.min() ?? .max
            for i in round.indices { round[i].fixes.removeAll { $0.fixTime < cut } }
            slotDevices = slotDevices.filter { hour, _ in hour >= SQLitePositionStore.hour(cut) }
        }
    }
}
