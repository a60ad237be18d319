public import Platform
public import GeoCore

/// Decides every condition of a monitor from fixes and beacon sightings: the pure core of
/// ``RegionMonitor`` and of the positioning delegate's region API (no I/O, no clock).
///
/// Each fix is checked against the regions a ``FenceIndex`` finds within
/// ``InsideProbability/decidedBeyond`` σ of it, plus the conditions that are not settled
/// outside (satisfied, unknown, or with a pending change), which further away see P = 0.
/// There is no cap on the number of conditions; the limits are memory (about 200 bytes per
/// circle, plus 48 bytes per polygon edge) and time per fix (proportional to the regions near
/// the fix and the conditions not settled outside).
///
/// A copy is cheap to keep deciding (the tracking server holds one per device over 100,000
/// fences): processing fixes writes nothing per condition but the decisions that change a
/// record, which go to a small overlay (``restore(_:)`` of a monitored condition too); the
/// conditions, their index and hot arrays stay shared until `add`, `remove`, or an overlay past
/// a quarter of the conditions folds into them.
public struct FenceEngine: Sendable {
    public var policy: FencePolicy
    private struct Slot: Sendable {
        var record: MonitorRecord
        var tracker = FenceTracker()
        var bounds: (south: Double, west: Double, north: Double, east: Double)?
    }
    /// A slot as decided since it was added, and whether it is busy (``isBusy(_:)``).
    private struct Decided: Sendable {
        var slot: Slot
        var busy: Bool
    }
    private var slots: [Slot?] = []
    /// The slots whose record or tracker changed since they were added (they override `slots`,
    /// `hotState` and `hotBusy`).
    private var overlay: [Int: Decided] = [:]
    private var free: [Int] = []
    private var byIdentifier: [String: Int] = [:]
    private var index = FenceIndex()
    /// Per slot, what the hot loop reads without touching the record (flat arrays, so a fix
    /// that changes nothing for a region costs a distance and two comparisons): the state,
    /// whether anything is pending (a run, a dwell to come), and a circle's centre and radius
    /// (radius 0 for other conditions).
    private var hotState: [ConditionState] = []
    private var hotBusy: [Bool] = []
    private var circleLatitude: [Double] = [], circleLongitude: [Double] = [], circleRadius: [Double] = []
    /// Geographic slots to evaluate on every fix: not settled outside (satisfied, unknown or busy).
    private var active: Set<Int> = []
    private var beacons: Set<Int> = []
    private var previous: (coordinate: Coordinate, date: Date, sigma: Double)?
    /// Reused between fixes.
    private var nearBuffer: [Int] = []
    /// Fixes ignored: out of order, or without a usable accuracy.
    public private(set) var ignoredFixes = 0

    public init(policy: FencePolicy = .default) { self.policy = policy }

    /// The identifiers monitored, sorted.
    public var identifiers: [String] { byIdentifier.keys.sorted() }

    /// The record of `identifier`, if monitored.
    public func record(for identifier: String) -> MonitorRecord? { byIdentifier[identifier].flatMap { slot($0)?.record } }

    /// Every record, by identifier.
    public var records: [String: MonitorRecord] { byIdentifier.mapValues { slot($0)!.record } }

    /// A slot as decided: its overlay, else as added.
    private func slot(_ id: Int) -> Slot? { overlay[id]?.slot ?? slots[id] }

    /// A slot's state and whether it is busy.
    private func hot(_ id: Int) -> (state: ConditionState, busy: Bool) {
        if let decided = overlay[id] { return (decided.slot.record.state, decided.busy) }
        return (hotState[id], hotBusy[id])
    }

    /// Monitors `condition` under `identifier`, replacing a condition of that identifier.
    /// - Parameters:
    ///   - state: the state assumed until a decision (Core Location's `assuming:`).
    ///   - dwell: after how long satisfied a dwell event comes.
    ///   - date: when it was added: the date of the assumed state's event.
    /// - Throws: `MonitoringError.invalidIdentifier` for an empty identifier.
    public mutating func add(_ condition: MonitorCondition, identifier: String, assuming state: ConditionState = .unknown,
                             dwell: Duration? = nil, at date: Date) throws(MonitoringError) {
        let record = MonitorRecord(condition: condition, lastEvent: MonitorEvent(identifier: identifier, date: date, state: state),
                                   satisfiedSince: state == .satisfied ? date : nil, dwell: dwell)
        try restore(record)
    }

    /// Monitors a record as it was (a store read back), keeping its state and dates. A record of
    /// a monitored identifier with the same condition only replaces its decision state.
    public mutating func restore(_ record: MonitorRecord) throws(MonitoringError) {
        let identifier = record.lastEvent.identifier
        guard !identifier.isEmpty else { throw MonitoringError(.invalidIdentifier, "an identifier must not be empty") }
        if let id = byIdentifier[identifier], let added = slots[id], added.record.condition == record.condition, added.bounds != nil {
            var slot = added
            slot.record = record
            slot.tracker = FenceTracker()
            set(id, slot)
            return
        }
        _ = remove(identifier, at: record.lastEvent.date)
        var slot = Slot(record: record)
        let id = free.popLast() ?? slots.count
        switch record.condition {
        case .circle(let c):
            let dLat = c.radius.meters / 110_574 // metres per degree of latitude at the equator, the smallest
            let dLon = min(dLat / max(cos(min(abs(c.center.latitude) + dLat, 89.9) * .pi / 180), 1e-3), 180)
            // A circle reaching 180° either way spans every longitude (normalized, both sides
            // would be the one meridian opposite its centre: a box of no width).
            let (west, east) = dLon >= 180 ? (-180.0, 180.0)
                : (Coordinate.normalizedLongitude(c.center.longitude - dLon), Coordinate.normalizedLongitude(c.center.longitude + dLon))
            slot.bounds = (c.center.latitude - dLat, west, c.center.latitude + dLat, east)
        case .polygon(let p):
            slot.bounds = (p.south, p.west, p.north, p.east)
        case .beacon:
            beacons.insert(id)
        }
        if id == slots.count {
            slots.append(slot)
            hotState.append(.unknown); hotBusy.append(false)
            circleLatitude.append(0); circleLongitude.append(0); circleRadius.append(0)
        } else {
            slots[id] = slot
        }
        overlay[id] = nil
        hotState[id] = record.state
        hotBusy[id] = Self.isBusy(slot)
        if case .circle(let c) = record.condition {
            (circleLatitude[id], circleLongitude[id], circleRadius[id]) = (c.center.latitude, c.center.longitude, c.radius.meters)
        } else {
            circleRadius[id] = 0
        }
        byIdentifier[identifier] = id
        if let b = slot.bounds {
            index.insert(id, south: b.south, west: b.west, north: b.north, east: b.east)
            if record.state != .unsatisfied { active.insert(id) }
        }
    }

    /// Stops monitoring `identifier`; returns its `.unmonitored` event, or nil when unknown.
    @discardableResult
    public mutating func remove(_ identifier: String, at date: Date) -> MonitorEvent? {
        guard let id = byIdentifier.removeValue(forKey: identifier), let slot = self.slot(id) else { return nil }
        if let b = slot.bounds { index.remove(id, south: b.south, west: b.west, north: b.north, east: b.east) }
        active.remove(id)
        beacons.remove(id)
        slots[id] = nil
        overlay[id] = nil
        hotBusy[id] = false
        circleRadius[id] = 0
        free.append(id)
        return MonitorEvent(identifier: identifier, date: date, state: .unmonitored)
    }

    /// Decides the geographic conditions with one fix; returns the events, in order.
    ///
    /// An inferred crossing needs both fixes decisively outside (≥ 2.33 σ) and the path's
    /// deepest point inside with P ≥ 0.9 (≥ 1.28 σ), so paths shorter than 7.2 σ (a car at
    /// 1 Hz) are not searched for one.
    /// - Complexity: O(regions near the fix + conditions not settled outside).
    public mutating func process(_ fix: Location) -> [MonitorEvent] {
        guard let accuracy = fix.horizontalAccuracy?.meters, accuracy.isFinite, accuracy >= 0, accuracy <= policy.maximumAccuracy,
              previous.map({ fix.timestamp > $0.date }) ?? true else {
            ignoredFixes += 1
            return []
        }
        let sigma = max(InsideProbability.sigma(accuracy: accuracy), 0.01)
        let here = fix.coordinate, date = fix.timestamp
        let gap = previous.map { date.timeIntervalSince($0.date) }
        var events: [MonitorEvent] = []
        var near = nearBuffer
        near.removeAll(keepingCapacity: true)
        box(around: [here], margin: InsideProbability.decidedBeyond * sigma) { south, west, north, east in
            index.forEach(south: south, west: west, north: north, east: east) { near.append($0) }
        }
        var inferred: [Int] = []
        if let previous {
            let largest = max(sigma, previous.sigma)
            if LocalFrame.distance(previous.coordinate, here) >= 7.2 * largest {
                box(around: [previous.coordinate, here], margin: InsideProbability.decidedBeyond * largest) { south, west, north, east in
                    index.forEach(south: south, west: west, north: north, east: east) { id in
                        let (state, busy) = hot(id)
                        if state == .unsatisfied, !busy { inferred.append(id) }
                    }
                }
            }
        }
        let local = LocalFrame(origin: here)
        for id in near {
            let radius = circleRadius[id]
            let p: Double
            if radius > 0 {
                let centre = Coordinate(uncheckedLatitude: circleLatitude[id], longitude: circleLongitude[id])
                p = InsideProbability.circle(distance: local.distance(centre, here), radius: radius, sigma: sigma)
            } else if let condition = slots[id]?.record.condition {
                p = InsideProbability.of(condition, at: here, sigma: sigma) ?? 0
            } else {
                continue
            }
            events += decide(id, p, date, gap)
        }
        if !active.isEmpty {
            let visited = Set(near)
            for id in active.sorted() where !visited.contains(id) { events += decide(id, 0, date, gap) } // a stable order
        }
        nearBuffer = near
        if let previous {
            for id in inferred where hot(id).state == .unsatisfied {
                events += inferredCrossing(id, from: previous, to: (here, date, sigma))
            }
        }
        previous = (here, date, sigma)
        return events
    }

    /// Applies one probability to a slot; a fix on the side of its settled state with nothing
    /// pending changes nothing and costs nothing more.
    private mutating func decide(_ id: Int, _ p: Double, _ date: Date, _ gap: Double?) -> [MonitorEvent] {
        let (state, busy) = hot(id)
        if !busy, p >= policy.enterProbability ? state == .satisfied : (p <= policy.exitProbability ? state == .unsatisfied : true) {
            return []
        }
        // Taken out of the overlay so that the record's storage is not copied on write.
        guard var slot = overlay.removeValue(forKey: id)?.slot ?? slots[id] else { return [] }
        let events = slot.tracker.update(&slot.record, probability: p, at: date, gap: gap, policy: policy)
        set(id, slot)
        return events
    }

    /// Keeps a slot's decision state in the overlay, and the active set with it. An overlay
    /// past a quarter of the slots (and 64) folds into the shared arrays: their copy, O(slots),
    /// is paid at most once per that many decisions.
    private mutating func set(_ id: Int, _ slot: Slot) {
        let busy = Self.isBusy(slot)
        overlay[id] = Decided(slot: slot, busy: busy)
        if slot.bounds != nil {
            if slot.record.state == .unsatisfied, !busy { active.remove(id) } else { active.insert(id) }
        }
        guard overlay.count > max(64, slots.count / 4) else { return }
        for (i, decided) in overlay {
            slots[i] = decided.slot
            hotState[i] = decided.slot.record.state
            hotBusy[i] = decided.busy
        }
        overlay.removeAll()
    }

    /// Whether a slot has something pending: a run that may confirm, or a dwell to come.
    private static func isBusy(_ slot: Slot) -> Bool {
        slot.tracker.isPending || (slot.record.state == .satisfied && slot.record.dwell != nil && !slot.record.dwellReported)
    }

    /// An enter and an exit when the straight path between two fixes, both decisively outside,
    /// runs through the region so that its deepest point is inside with P ≥ the enter threshold
    /// (σ the larger of the two fixes'). The times are interpolated along the path.
    private func inferredCrossing(_ id: Int, from a: (coordinate: Coordinate, date: Date, sigma: Double),
                                  to b: (coordinate: Coordinate, date: Date, sigma: Double)) -> [MonitorEvent] {
        guard let record = slot(id)?.record else { return [] }
        let sigma = max(a.sigma, b.sigma)
        let outside = 1 - policy.decisiveProbability
        guard let pa = InsideProbability.of(record.condition, at: a.coordinate, sigma: a.sigma), pa <= outside,
              let pb = InsideProbability.of(record.condition, at: b.coordinate, sigma: b.sigma), pb <= outside,
              let crossing = RegionCrossing.deepest(record.condition, from: a.coordinate, to: b.coordinate),
              crossing.depth > 0,
              InsideProbability.normal(signedDistance: crossing.depth, sigma: sigma) >= policy.enterProbability
        else { return [] }
        let span = b.date.timeIntervalSince(a.date)
        let enter = a.date.addingTimeInterval(span * crossing.enter), exit = a.date.addingTimeInterval(span * crossing.exit)
        return [MonitorEvent(identifier: record.lastEvent.identifier, date: enter, state: .satisfied, refinement: .inferredCrossing),
                MonitorEvent(identifier: record.lastEvent.identifier, date: exit, state: .unsatisfied, refinement: .inferredCrossing)]
    }

    /// Beacon sightings at `date`: a condition matching one becomes satisfied at once; one with
    /// no match for ``FencePolicy/beaconExitDelay`` becomes unsatisfied.
    public mutating func observe(beacons sightings: [(uuid: UUID, major: UInt16, minor: UInt16)], at date: Date) -> [MonitorEvent] {
        var events: [MonitorEvent] = []
        for id in beacons.sorted() {
            guard var slot = self.slot(id), case .beacon(let condition) = slot.record.condition else { continue }
            if let hit = sightings.first(where: { condition.matches(uuid: $0.uuid, major: $0.major, minor: $0.minor) }) {
                slot.record.lastSeen = date
                if slot.record.state != .satisfied {
                    slot.record.lastEvent = MonitorEvent(identifier: slot.record.lastEvent.identifier, date: date, state: .satisfied,
                                                         refinement: .beacon(major: hit.major, minor: hit.minor))
                    slot.record.satisfiedSince = date
                    events.append(slot.record.lastEvent)
                }
            } else if slot.record.state != .unsatisfied {
                let since = slot.record.lastSeen ?? slot.record.lastEvent.date
                if date.timeIntervalSince(since) >= policy.beaconExitDelay.seconds {
                    slot.record.lastEvent = MonitorEvent(identifier: slot.record.lastEvent.identifier, date: date, state: .unsatisfied)
                    slot.record.satisfiedSince = nil
                    events.append(slot.record.lastEvent)
                }
            }
            set(id, slot)
        }
        return events
    }

    /// The degree box around `points` widened by `margin` metres.
    private func box(around points: [Coordinate], margin: Double, _ body: (Double, Double, Double, Double) -> Void) {
        var south = 90.0, north = -90.0, west = 180.0, east = -180.0
        for p in points {
            south = min(south, p.latitude); north = max(north, p.latitude)
            west = min(west, p.longitude); east = max(east, p.longitude)
        }
        if east - west > 180 { (west, east) = (-180, 180) } // a path across the antimeridian: all longitudes
        let dLat = margin / 110_574
        let dLon = dLat / max(cos(min(max(abs(south), abs(north)) + dLat, 89.9) * .pi / 180), 1e-3)
        body(south - dLat, max(west - dLon, -180), north + dLat, min(east + dLon, 180))
    }
}
