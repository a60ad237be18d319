public import GeoCore
public import Platform

/// What became of one fix in a `TrackCleaner`.
public enum FilterDecision: Hashable, Sendable {
    /// Passed on, as this location (the Kalman estimate when a filter runs, else the fix).
    case accepted(Location)
    /// Dropped, and why.
    case rejected(RejectionReason)

    /// The location passed on, if any.
    public var location: Location? {
        if case .accepted(let l) = self { return l }
        return nil
    }

    /// The reason, if dropped.
    public var reason: RejectionReason? {
        if case .rejected(let r) = self { return r }
        return nil
    }
}

/// Rules, then optionally the Kalman filter, then the distance filter on what is delivered:
/// the whole online cleaning step for live updates, and the offline one for saved tracks.
///
/// ```swift
/// var cleaner = TrackCleaner(configuration: .fitness)
/// for fix in fixes { if let clean = cleaner.process(fix, receivedAt: clock.now).location { … } }
/// print(cleaner.report)
/// ```
public struct TrackCleaner<Rule: TrackFilter>: Sendable {
    /// The rules.
    public var rule: Rule
    /// The Kalman filter run on the fixes the rules accept; nil = rules only.
    public var kalman: KalmanSmoother?
    /// Delivered locations are at least this far apart (nil: every accepted fix is delivered).
    public var minimumDistance: Distance?
    /// Where the last delivered location was.
    public private(set) var lastDelivered: Coordinate?
    /// The last raw fix accepted (what rules compare against).
    public private(set) var lastAccepted: FilterAnchor?
    /// Counts per reason so far.
    public private(set) var report = FilterReport()
    /// A frame near the recent fixes, so measuring hops needs no trigonometric call.
    private var measuringFrame: LocalFrame?
    /// Whether the last `process(_:receivedAt:)` exposed the location delivered before it as an
    /// outlier: the Kalman filter's unconfirmed start, or a fix both its neighbours contradict
    /// (`KalmanSmoother.overturnedPreviousFix`: a jump the gate let through). A live consumer has shown it already; a batch one
    /// drops it (`cleaned(_:)`), delaying each delivery by one fix in effect.
    public private(set) var retractsPreviousDelivery = false
    /// Whether the last `process(_:receivedAt:)` also took back the delivery retracted the step
    /// before (`KalmanSmoother.reinstatedFix`): it stands again, before this one.
    public private(set) var reinstatesRetractedDelivery = false
    /// The last retracted delivery: its fix time and where it was.
    private var retractedDelivery: (time: Date, coordinate: Coordinate)?
    /// The fix time of the last delivered location, and the location delivered before it.
    private var lastDeliveredTime: Date?
    private var deliveredBefore: Coordinate?

    public init(rule: Rule, kalman: KalmanParameters? = nil, minimumDistance: Distance? = nil) {
        self.rule = rule
        self.kalman = kalman.map { KalmanSmoother(parameters: $0) }
        self.minimumDistance = minimumDistance
    }

    /// Judges one fix and, when accepted, returns the cleaned location.
    /// - Parameter receivedAt: the injected clock's reading when the fix arrived (for the stale
    ///   and warm-up rules); nil offline.
    /// - Complexity: O(1), allocation-free for the standard rules.
    // Pre-specialised for the standard rules: callers in other modules (live updates, the CLI,
    // the benchmark) otherwise run the generic body, each rule through its witness table.
    @_specialize(exported: true, where Rule == StandardRules)
    public mutating func process(_ fix: Location, receivedAt: Date? = nil) -> FilterDecision {
        process(fix, receivedAt: receivedAt, rejectedAs: nil)
    }

    /// `process(_:receivedAt:)` for a fix that a pass looking further ahead rejected
    /// (`SmoothedCleaning`): the rules still judge it, so that their state follows the track,
    /// but a fix they pass is rejected as `rejectedAs` instead of reaching the Kalman filter
    /// (held still for `.stationary`, as a fix the stationary rule holds).
    @inline(__always)
    mutating func process(_ fix: Location, receivedAt: Date?, rejectedAs: RejectionReason?) -> FilterDecision {
        if !(measuringFrame?.coversLatitude(of: fix.coordinate) ?? false) {
            measuringFrame = LocalFrame(origin: fix.coordinate)
        }
        retractsPreviousDelivery = false
        reinstatesRetractedDelivery = false
        let input = FilterInput(fix: fix, receivedAt: receivedAt, previous: lastAccepted, frame: measuringFrame)
        if let reason = rule.evaluate(input) {
            // A fix held for stillness still tells the filter the device is not moving.
            if reason == .stationary { kalman?.holdStill(at: fix.timestamp) }
            report.record(reason)
            return .rejected(reason)
        }
        if let reason = rejectedAs {
            if reason == .stationary { kalman?.holdStill(at: fix.timestamp) }
            report.record(reason)
            return .rejected(reason)
        }
        var out = fix
        if kalman != nil {
            switch kalman!.update(with: fix, into: &out) {
            case .started, .updated:
                break
            case .rejected:
                report.record(.kalmanOutlier)
                return .rejected(.kalmanOutlier)
            case .outOfOrder:
                report.record(.outOfOrder)
                return .rejected(.outOfOrder)
            }
            if kalman!.overturnedPreviousFix || kalman!.replacedUnconfirmedStart,
               let overturned = lastAccepted?.timestamp, overturned == lastDeliveredTime, let taken = lastDelivered {
                retractsPreviousDelivery = true
                lastDelivered = deliveredBefore
                lastDeliveredTime = nil
                if let time = kalman!.reinstatedFix, let back = retractedDelivery, back.time == time {
                    reinstatesRetractedDelivery = true
                    deliveredBefore = lastDelivered
                    lastDelivered = back.coordinate
                    retractedDelivery = nil
                } else {
                    retractedDelivery = (overturned, taken)
                }
            }
        }
        rule.accepted(input)
        lastAccepted = FilterAnchor(fix)
        if let minimumDistance, let last = lastDelivered,
           (measuringFrame?.distance(last, out.coordinate) ?? LocalFrame.distance(last, out.coordinate)) < minimumDistance.meters {
            report.record(.belowMinimumDistance)
            return .rejected(.belowMinimumDistance)
        }
        deliveredBefore = lastDelivered
        lastDelivered = out.coordinate
        lastDeliveredTime = fix.timestamp
        report.record(nil)
        return .accepted(out)
    }

    /// The cleaned locations of a saved track (no receive times, so no stale rule).
    /// - Complexity: O(n).
    public mutating func cleaned(_ track: some Sequence<Location>) -> [Location] {
        cleaned(track) { ($0, nil) }.map(\.location)
    }

    /// The batch form of `process(_:receivedAt:)`: each item's fix and receive time judged in
    /// order, the accepted items with their cleaned locations. A delivery the next fix exposes
    /// as an outlier (`retractsPreviousDelivery`) is dropped again and counted as a Kalman outlier.
    /// - Complexity: O(n).
    public mutating func cleaned<Item>(_ items: some Sequence<Item>,
                                       fix: (Item) -> (Location, Date?)) -> [(item: Item, location: Location)] {
        var stream = TrackCleaning<Rule, Item>(self)
        var out: [(item: Item, location: Location)] = []
        for item in items {
            let (f, receivedAt) = fix(item)
            stream.push(f, receivedAt: receivedAt, item: item) { out.append(($1, $0)) }
        }
        stream.finish { out.append(($1, $0)) }
        self = stream.cleaner
        report = stream.report
        return out
    }
}

/// The batch form of `TrackCleaner` for a saved track read as a stream: each delivery waits
/// for the next fix, which may expose it as an outlier (`retractsPreviousDelivery`: a
/// segment's unconfirmed first fix, or a jump both neighbours contradict); then it is dropped and counted as a Kalman
/// outlier, else it leaves with the item it came with. One fix in memory however long the track.
public struct TrackCleaning<Rule: TrackFilter, Item> {
    /// The cleaner, with its state after the fixes pushed so far.
    public private(set) var cleaner: TrackCleaner<Rule>
    /// The last delivery, until the next fix confirms it.
    private var held: (location: Location, item: Item)?
    /// Deliveries taken back, and the last one, until the next fix confirms that.
    private var retracted = FilterReport()
    private var taken: (location: Location, item: Item)?

    public init(_ cleaner: TrackCleaner<Rule>) { self.cleaner = cleaner }

    /// Counts per reason of every fix pushed, the deliveries taken back as Kalman outliers.
    public var report: FilterReport {
        var r = cleaner.report
        r.merge(retracted)
        return r
    }

    /// Judges one fix and emits the delivery before it once this one confirms it.
    /// - Complexity: O(1).
    public mutating func push(_ fix: Location, receivedAt: Date? = nil, item: Item,
                              _ emit: (Location, Item) throws -> Void) rethrows {
        try push(fix, receivedAt: receivedAt, item: item, rejectedAs: nil, emit)
    }

    /// `push(_:receivedAt:item:_:)` for a fix a pass looking further ahead rejected as
    /// `rejectedAs` (nil: it did not): see `TrackCleaner.process(_:receivedAt:rejectedAs:)`.
    mutating func push(_ fix: Location, receivedAt: Date?, item: Item, rejectedAs: RejectionReason?,
                       _ emit: (Location, Item) throws -> Void) rethrows {
        let decision = cleaner.process(fix, receivedAt: receivedAt, rejectedAs: rejectedAs)
        if cleaner.retractsPreviousDelivery, let jump = held {
            held = nil
            retracted.reclassify(acceptedAs: .kalmanOutlier)
            if cleaner.reinstatesRetractedDelivery, let back = taken {
                // The delivery taken back the step before stands again.
                retracted.reinstate(rejectedAs: .kalmanOutlier)
                taken = nil
                try emit(back.location, back.item)
            } else {
                taken = jump
            }
        }
        guard let location = decision.location else { return }
        if let (l, i) = held { try emit(l, i) }
        held = (location, item)
        if !cleaner.retractsPreviousDelivery { taken = nil }
    }

    /// Emits the last delivery (the end of the track).
    public mutating func finish(_ emit: (Location, Item) throws -> Void) rethrows {
        if let (l, i) = held { try emit(l, i) }
        held = nil
    }
}

extension TrackCleaner where Rule == StandardRules {
    /// The standard rules and Kalman filter of a configuration (usually a preset).
    /// - Parameter start: when updates started, for the warm-up rule (nil = the first fix).
    public init(configuration: TrackFilterConfiguration, start: Date? = nil) {
        self.init(rule: configuration.rules(start: start), kalman: configuration.kalman,
                  minimumDistance: configuration.minimumDistance)
    }
}

extension TrackFilterConfiguration {
    /// A saved track cleaned by the rules and this configuration's Kalman gate, as `TrackCleaner`
    /// cleans it, then RTS-smoothed with heavy-tailed noise (`KalmanSmoother.smoothed(_:rules:report:)`;
    /// the default model when the configuration has none). The distance filter is not applied.
    /// - Complexity: O(n).
    public func smoothed(_ track: some Sequence<Location>, report: inout FilterReport) -> [Location] {
        KalmanSmoother(parameters: kalman ?? KalmanParameters()).smoothed(track, rules: rules(), report: &report)
    }
}
