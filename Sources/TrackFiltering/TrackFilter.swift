public import GeoCore
public import Platform

/// The parts of an accepted fix that rules compare against: where, when and how accurate.
public struct FilterAnchor: Hashable, Sendable {
    /// Where the fix was.
    public var coordinate: Coordinate
    /// When it was taken.
    public var timestamp: Date
    /// Its horizontal accuracy in metres, nil when missing, negative or NaN.
    public var accuracy: Double?

    /// The anchor of a fix.
    public init(_ fix: Location) {
        coordinate = fix.coordinate
        timestamp = fix.timestamp
        accuracy = fix.horizontalAccuracy.flatMap { $0.meters >= 0 ? $0.meters : nil }
    }
}

/// What a rule sees about one fix: the fix, when it arrived, and the last fix the whole
/// pipeline accepted, with the hop between them measured once for every rule.
public struct FilterInput: Sendable {
    /// The fix being judged.
    public let fix: Location
    /// When the fix reached the app, from an injected clock (never read here); nil offline.
    public let receivedAt: Date?
    /// The last fix the pipeline accepted, if any (its position, time and accuracy; kept this
    /// small so judging a fix copies little).
    public let previous: FilterAnchor?
    /// Distance from `previous`, metres (0 without one).
    public let distanceFromPrevious: Double
    /// Time from `previous` to this fix by their timestamps, seconds (+∞ without one).
    public let secondsSincePrevious: Double

    /// Measures the hop from `previous` to `fix`.
    public init(fix: Location, receivedAt: Date?, previous: FilterAnchor?) {
        self.init(fix: fix, receivedAt: receivedAt, previous: previous, frame: nil)
    }

    /// Measures the hop on `frame` when given (a caller's cached frame near both points).
    init(fix: Location, receivedAt: Date?, previous: FilterAnchor?, frame: LocalFrame?) {
        self.fix = fix
        self.receivedAt = receivedAt
        self.previous = previous
        if let previous {
            distanceFromPrevious = frame?.distance(previous.coordinate, fix.coordinate)
                ?? LocalFrame.distance(previous.coordinate, fix.coordinate)
            secondsSincePrevious = fix.timestamp.timeIntervalSince(previous.timestamp)
        } else {
            distanceFromPrevious = 0
            secondsSincePrevious = .infinity
        }
    }

    /// The fix's horizontal accuracy in metres, nil when missing, negative or NaN.
    public var accuracy: Double? {
        guard let m = fix.horizontalAccuracy?.meters, m >= 0 else { return nil }
        return m
    }

    /// The previous fix's horizontal accuracy in metres, nil when missing or invalid.
    public var previousAccuracy: Double? { previous?.accuracy }
}

/// One rule of a track-cleaning pipeline: it either passes a fix on or says why it is dropped.
///
/// Rules are values; those with memory (the warm-up start, the stationary state) keep it in
/// their own stored properties. Compose them with `followed(by:)` and run them through a
/// `TrackFilterPipeline`, which supplies the last accepted fix to every rule.
public protocol TrackFilter: Sendable {
    /// Judges one fix, in arrival order. Returns nil to pass it on.
    mutating func evaluate(_ input: FilterInput) -> RejectionReason?
    /// Told about each fix the whole pipeline accepted (after every rule passed it).
    mutating func accepted(_ input: FilterInput)
}

extension TrackFilter {
    public mutating func accepted(_ input: FilterInput) {}

    /// This rule, then `next` for fixes this one passes.
    public func followed<Next: TrackFilter>(by next: Next) -> ChainedFilter<Self, Next> {
        ChainedFilter(first: self, second: next)
    }
}

/// Two rules in sequence: the first rejection wins. Built by `followed(by:)`; generic, so a
/// chain compiles to straight-line code with no existential calls.
public struct ChainedFilter<First: TrackFilter, Second: TrackFilter>: TrackFilter {
    public var first: First
    public var second: Second

    public init(first: First, second: Second) {
        self.first = first
        self.second = second
    }

    public mutating func evaluate(_ input: FilterInput) -> RejectionReason? {
        if let reason = first.evaluate(input) { return reason }
        return second.evaluate(input)
    }

    public mutating func accepted(_ input: FilterInput) {
        first.accepted(input)
        second.accepted(input)
    }
}

/// A rule that may be switched off (`nil`): the form presets use for optional rules. The rule
/// is judged in place through optional chaining: taking it out and putting it back copied the
/// whole rule twice per fix (5 % of the cleaner's time in `memmove`).
extension Optional: TrackFilter where Wrapped: TrackFilter {
    public mutating func evaluate(_ input: FilterInput) -> RejectionReason? {
        self?.evaluate(input) ?? nil
    }

    public mutating func accepted(_ input: FilterInput) {
        self?.accepted(input)
    }
}

/// Runs a rule (usually a chain) over fixes one at a time, remembering the last accepted fix
/// and counting every decision.
///
/// Usable online — feed each fix as it arrives with the injected receive time — or offline
/// over a saved track with `filtered(_:)`.
public struct TrackFilterPipeline<Rule: TrackFilter>: Sendable {
    /// The rule or chain of rules.
    public var rule: Rule
    /// The last fix accepted.
    public private(set) var lastAccepted: FilterAnchor?
    /// Counts so far.
    public private(set) var report = FilterReport()

    public init(_ rule: Rule) { self.rule = rule }

    /// Judges one fix; nil means accepted.
    /// - Parameter receivedAt: when it arrived (an injected clock reading), for the stale rule.
    /// - Complexity: O(1) per rule.
    public mutating func process(_ fix: Location, receivedAt: Date? = nil) -> RejectionReason? {
        let input = FilterInput(fix: fix, receivedAt: receivedAt, previous: lastAccepted)
        let reason = rule.evaluate(input)
        if reason == nil {
            rule.accepted(input)
            lastAccepted = FilterAnchor(fix)
        }
        report.record(reason)
        return reason
    }

    /// The accepted fixes of a saved track, in order (receive times unknown, so no stale rule).
    /// - Complexity: O(n).
    public mutating func filtered(_ track: some Sequence<Location>) -> [Location] {
        var out: [Location] = []
        for fix in track where process(fix) == nil { out.append(fix) }
        return out
    }
}
