import GRDB

/// The two tiers of moved fixes in `SQLitePositionStore`, both keyed time first so that every
/// move appends at the right edge of its B-tree: `slots`, keyed by (10 s slot of the fix time,
/// device, fix time, payload hash), which the rounds fill from `recent`; and `positions`,
/// keyed by (hour of the fix time, device, …), into which a merge copies each hour of `slots`,
/// device after device, once the hour is `mergeAfter` over. A device's hour is then one range,
/// and its day 24 seeks.
///
/// Why: keyed (device, fix time), `positions` took each round's ~10 fixes of a device inside
/// its range; the leaf split there and rebalanced its neighbours, and every move transaction
/// rewrote the leaves and their parents. At 19,900 devices × 1 Hz the writer's WAL bytes per fix
/// grew from 380 to 1,900 in three minutes and each commit's sync waited for them
/// (Benchmarks/sqlite-layout.py replays the moves: 140 → 1,361 WAL bytes a row in 18 rounds
/// keyed device first, 140–142 keyed time first).
///
/// Both slot and hour are functions of the fix time (integer division, as SQLite's), so a fix
/// has one key in each table and `ON CONFLICT DO NOTHING` still refuses a retry.
extension SQLitePositionStore {
    /// Milliseconds of fix time in a slot of `slots` and an hour of `positions`.
    static let slotSpan: Int64 = 10_000, hourSpan: Int64 = 3_600_000
    static let slotsPerHour = hourSpan / slotSpan

    static func slot(_ fixTime: Int64) -> Int64 { fixTime / slotSpan }
    static func hour(_ fixTime: Int64) -> Int64 { fixTime / hourSpan }

    /// A merge of one hour of `slots` into `positions`: its devices copied in ascending id, each
    /// slot by slot (keys ascending: appends), then the hour deleted from `slots` in pieces.
    struct HourMerge {
        var hour: Int64
        /// The devices left to copy, ascending; the first from `slot` on.
        var devices: ArraySlice<Int64>
        var slot: Int64

        init(hour: Int64, devices: some Sequence<Int64>) {
            self.hour = hour
            self.devices = ArraySlice(devices.sorted())
            slot = hour * SQLitePositionStore.slotsPerHour
        }
    }

    /// Saves the boundary, the merged hours and the merge's next device in `moves` (one row),
    /// from which a reopened store goes on.
    static func saveMoves(_ db: Database, _ state: MoveState) throws {
        try db.execute(sql: "DELETE FROM moves")
        try db.execute(sql: "INSERT INTO moves (boundary, merged_below, merge_device) VALUES (?, ?, ?)",
                       arguments: [state.boundary, state.mergedBelow, state.merge?.devices.first])
    }

    /// A merge as the last run left it: its copy from the saved device on, or (none saved) the
    /// delete of the merged hours still in `slots`, or nil.
    static func merge(resuming db: Database, _ state: MoveState, device: Int64?) throws -> HourMerge? {
        let hour = state.mergedBelow - 1
        if let device {
            return HourMerge(hour: hour, devices: try Int64.fetchAll(db, sql: "SELECT id FROM devices WHERE id >= ?", arguments: [device]))
        }
        let least = try leastSlot(db)
        return least.map { $0 < state.mergedBelow * slotsPerHour } == true ? HourMerge(hour: hour, devices: []) : nil
    }

    /// The least slot `slots` holds; nil when empty.
    static func leastSlot(_ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT min(slot) FROM slots")
    }

    /// One transaction of merging (the caller holds `moves`, no round under way): begins the
    /// merge of the least hour in `slots` once it is `mergeAfter` over and `recent` holds none
    /// of its fixes (looked for when one may be, `MoveState.mergeLookAfter`), copies the next
    /// devices' rows (up to `sliceRows` rows or `mergeSeeks` slot seeks), or deletes the next
    /// piece of the merged hour from `slots`. The rows copied or deleted (at least 1 when it
    /// did work), 0 when idle.
    func mergeStep(_ state: inout MoveState, now: Int64) throws -> Int {
        if state.merge == nil {
            guard now >= state.mergeLookAfter else { return 0 }
            guard let least = try pool.read(Self.leastSlot) else {
                state.mergeLookAfter = .max
                return 0
            }
            let hour = least / Self.slotsPerHour, end = (hour + 1) * Self.hourSpan
            guard end <= now - mergeAfter else {
                state.mergeLookAfter = end + mergeAfter
                return 0
            }
            // Fixes of the hour wait in `recent`: the round taking them looks again.
            guard state.oldestWaiting >= end else {
                state.mergeLookAfter = .max
                return 0
            }
            let devices = hour >= state.trackedFrom ? Array(state.slotDevices[hour] ?? [])
                : try pool.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM devices") }
            var next = state
            // From here a fix of the hour goes to `positions` directly; `recent` holds none.
            next.boundary = max(next.boundary, end)
            next.mergedBelow = max(next.mergedBelow, hour + 1)
            next.merge = HourMerge(hour: hour, devices: devices)
            try write(synced: false) { db in try Self.saveMoves(db, next) }
            state = next
            state.slotDevices[hour] = nil
            return 1
        }
        var merge = state.merge!
        if !merge.devices.isEmpty {
            let hourEnd = (merge.hour + 1) * Self.slotsPerHour
            let copied = try write(synced: false) { db -> Int in
                let copy = try db.cachedStatement(sql: """
                    INSERT INTO positions (hour, \(Self.tableColumns)) SELECT ?, \(Self.tableColumns) FROM slots
                    WHERE slot = ? AND device_id = ? ON CONFLICT DO NOTHING
                    """)
                var rows = 0, seeks = 0
                while let device = merge.devices.first, rows < sliceRows, seeks < Self.mergeSeeks {
                    try copy.execute(arguments: [merge.hour, merge.slot, device])
                    rows += db.changesCount
                    seeks += 1
                    merge.slot += 1
                    if merge.slot == hourEnd {
                        merge.devices.removeFirst()
                        merge.slot = merge.hour * Self.slotsPerHour
                    }
                }
                var saved = state
                saved.merge = merge
                try Self.saveMoves(db, saved)
                return rows
            }
            state.merge = merge
            return max(copied, 1)
        }
        // Copied: the merged hours deleted from `slots`, ~`sliceRows` rows a transaction.
        let below = (merge.hour + 1) * Self.slotsPerHour, rows = sliceRows
        let (deleted, done) = try write(synced: false) { db -> (Int, Bool) in
            let piece = "SELECT slot, device_id, fix_time, payload_hash FROM slots WHERE slot < ? LIMIT 1 OFFSET ?"
            if let next = try Row.fetchOne(db, sql: piece, arguments: [below, rows]) {
                try db.execute(sql: "DELETE FROM slots WHERE (slot, device_id, fix_time, payload_hash) < (?, ?, ?, ?)",
                               arguments: [next[0], next[1], next[2], next[3]])
                return (db.changesCount, false)
            }
            try db.execute(sql: "DELETE FROM slots WHERE slot < ?", arguments: [below])
            return (db.changesCount, true)
        }
        if done {
            state.merge = nil
            state.mergeLookAfter = .min  // the next hour, if one is due, at once
        }
        return max(deleted, 1)
    }

    /// Slot seeks a merge transaction makes at most: a device's hour is 360 slots, each a seek
    /// whether or not the device sent in it.
    static let mergeSeeks = 2_000

    /// Stores a fix below the boundary that `recent` does not hold (late, or a retry of one
    /// moved): into `positions` when its hour is merged, else into `slots`; nothing when either
    /// holds it (both may while a merge is under way, or the hour of a carried-over file's
    /// boundary). Whether it was stored.
    struct LateFixes {
        let intoSlots: SQLiteFixInsert
        let intoPositions: SQLiteFixInsert
        let inSlots: Statement
        let inPositions: Statement

        init(_ db: Database) throws {
            intoSlots = try SQLiteFixInsert(db, into: "slots", leading: "slot", conflict: "ON CONFLICT DO NOTHING")
            intoPositions = try SQLiteFixInsert(db, into: "positions", leading: "hour", conflict: "ON CONFLICT DO NOTHING")
            inSlots = try db.cachedStatement(sql: "SELECT 1 FROM slots WHERE slot = ? AND device_id = ? AND fix_time = ? AND payload_hash = ?")
            inPositions = try db.cachedStatement(sql: "SELECT 1 FROM positions WHERE hour = ? AND device_id = ? AND fix_time = ? AND payload_hash = ?")
        }

        func store(_ fix: StoredFix, id: Int64, state: inout MoveState) throws -> Bool {
            let hour = SQLitePositionStore.hour(fix.fixTime)
            guard hour < state.mergedBelow else {
                if hour < state.positionsEnd, try Int.fetchOne(inPositions, arguments: [hour, id, fix.fixTime, fix.payloadHash]) != nil { return false }
                guard try intoSlots.run(fix, id: id, leading: SQLitePositionStore.slot(fix.fixTime)) else { return false }
                state.noteSlot(hour: hour, device: id)
                return true
            }
            if state.merge != nil,
               try Int.fetchOne(inSlots, arguments: [SQLitePositionStore.slot(fix.fixTime), id, fix.fixTime, fix.payloadHash]) != nil {
                return false
            }
            return try intoPositions.run(fix, id: id, leading: hour)
        }
    }
}
