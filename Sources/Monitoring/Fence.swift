public import Platform
import GeoCore

/// How a condition's state is decided from the probability that the position is inside
/// (``InsideProbability``).
///
/// Rules:
/// - Enter at P ≥ ``enterProbability`` (0.9), exit at P ≤ ``exitProbability`` (0.1); between
///   them nothing changes (hysteresis).
/// - A change is confirmed by a run of fixes all on its side: at least ``minimumFixes`` (2)
///   spanning ``confirmation`` (20 s) when every fix in the run is decisive (P ≥ 0.99 or ≤ 0.01),
///   else spanning ``marginalConfirmation`` (60 s). GNSS errors are correlated over tens of
///   seconds (a parked phone's wander): a 20 s run of merely likely fixes happens by chance
///   about once an hour 10 m from a fence with 15 m accuracy (a 20 s Gauss–Markov wander,
///   simulated over 400 hours), a 60 s one or a decisive one did not.
/// - A single decisive fix decides when fixes are sparse: it came ``confirmation`` or more
///   after the previous fix.
/// - Fixes with a timestamp not after the latest one are ignored, as are fixes whose accuracy is
///   missing, negative, not finite or above ``maximumAccuracy``.
public struct FencePolicy: Sendable, Hashable {
    public var enterProbability = 0.9
    public var exitProbability = 0.1
    /// A fix is decisive at P ≥ this or P ≤ 1 − this.
    public var decisiveProbability = 0.99
    public var minimumFixes = 2
    public var confirmation: Duration = .seconds(20)
    public var marginalConfirmation: Duration = .seconds(60)
    /// A beacon condition becomes unsatisfied when no matching beacon was seen for this long.
    public var beaconExitDelay: Duration = .seconds(30)
    /// Fixes with a worse 68 % radius are ignored, metres.
    public var maximumAccuracy = 10_000.0

    public init() {}
    public static let `default` = FencePolicy()
}

/// A monitored condition and what the monitor knows about it (Core Location's
/// `CLMonitor.Record`).
public struct MonitorRecord: Sendable, Hashable, Codable {
    public var condition: MonitorCondition
    /// The latest state change (or the assumed state it was added with).
    public var lastEvent: MonitorEvent
    /// When the condition became satisfied, for dwell events; nil while not satisfied.
    public var satisfiedSince: Date?
    /// After how long satisfied a dwell event comes; nil for none.
    public var dwell: Duration?
    /// Whether the dwell event of the current stay was sent.
    public var dwellReported = false
    /// When a matching beacon was last seen (beacon conditions).
    public var lastSeen: Date?

    public var state: ConditionState { lastEvent.state }

    /// A record as a store kept it (``FenceEngine/restore(_:)`` takes it back).
    public init(condition: MonitorCondition, lastEvent: MonitorEvent, satisfiedSince: Date? = nil, dwell: Duration? = nil,
                dwellReported: Bool = false, lastSeen: Date? = nil) {
        self.condition = condition
        self.lastEvent = lastEvent
        self.satisfiedSince = satisfiedSince
        self.dwell = dwell
        self.dwellReported = dwellReported
        self.lastSeen = lastSeen
    }
}

/// A run of consecutive fixes on one side of the thresholds.
struct FenceRun: Sendable {
    var target: ConditionState
    var start: Date
    var count: Int
}

/// The decision state of one geographic condition between fixes (``FencePolicy``'s rules).
struct FenceTracker: Sendable {
    var run: FenceRun?
    var decisiveRun: FenceRun?

    var isPending: Bool { run != nil }

    /// Takes one fix's probability; returns the events it causes.
    mutating func update(_ record: inout MonitorRecord, probability p: Double, at date: Date, gap: Double?,
                         policy: FencePolicy) -> [MonitorEvent] {
        var events: [MonitorEvent] = []
        let target: ConditionState? = p >= policy.enterProbability ? .satisfied : (p <= policy.exitProbability ? .unsatisfied : nil)
        let decisive = p >= policy.decisiveProbability || p <= 1 - policy.decisiveProbability
        if let target, target != record.state {
            func extend(_ run: FenceRun?) -> FenceRun {
                guard let run, run.target == target else { return FenceRun(target: target, start: date, count: 1) }
                return FenceRun(target: target, start: run.start, count: run.count + 1)
            }
            run = extend(run)
            decisiveRun = decisive ? extend(decisiveRun) : nil
            func confirmed(_ run: FenceRun?, _ span: Duration) -> Bool {
                guard let run else { return false }
                return run.count >= policy.minimumFixes && date.timeIntervalSince(run.start) >= span.seconds
            }
            let sparse = decisive && (gap ?? 0) >= policy.confirmation.seconds
            if sparse || confirmed(decisiveRun, policy.confirmation) || confirmed(run, policy.marginalConfirmation) {
                record.lastEvent = MonitorEvent(identifier: record.lastEvent.identifier, date: date, state: target, probability: p)
                record.satisfiedSince = target == .satisfied ? date : nil
                record.dwellReported = false
                events.append(record.lastEvent)
                run = nil
                decisiveRun = nil
            }
        } else {
            run = nil
            decisiveRun = nil
        }
        if record.state == .satisfied, !record.dwellReported, let dwell = record.dwell, let since = record.satisfiedSince,
           date.timeIntervalSince(since) >= dwell.seconds {
            record.dwellReported = true
            events.append(MonitorEvent(identifier: record.lastEvent.identifier, date: date, state: .satisfied, refinement: .dwell, probability: p))
        }
        return events
    }
}
