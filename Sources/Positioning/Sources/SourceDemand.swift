import Foundation
public import GeoCore

/// What the manager asks of its source, so that fixes nobody wants are not made at all rather
/// than made, decoded and dropped (issue 33 items 6 and 7; seed 000's significant changes are
/// the option "to save power").
///
/// - `receiverCycle` comes from `desiredAccuracy`: `PositioningManager` asks for a 5 s cycle
///   for an accuracy coarser than 10 m up to 100 m and 10 s beyond (LocationKit's choice;
///   Core Location only says a coarser accuracy saves power), nil — the receiver's own — for
///   `.accuracyBest`, `.accuracyBestForNavigation` and 10 m or finer. gpsd sets it where the
///   receiver's driver can (`?DEVICE={"cycle":…}`); a receiver that cannot keeps its rate.
/// - `checkInterval` comes from `.significantChanges`: 60 s, so the source makes one fix a
///   minute (a car at 30 m/s is reported at most 1.8 km after its 500 m; Core Location
///   promises no more than one update every 5 minutes).
public struct SourceDemand: Sendable, Hashable {
    /// The receiver reporting cycle to ask for, where the source can set it; nil keeps the
    /// receiver's own.
    public var receiverCycle: Duration?
    /// At most one fix per interval is wanted, the first after each rest: gpsd stops sending
    /// between checks (`?WATCH={"enable":false}`), replays skip the fixes in between. Nil
    /// wants every fix.
    public var checkInterval: Duration?

    public init(receiverCycle: Duration? = nil, checkInterval: Duration? = nil) {
        self.receiverCycle = receiverCycle
        self.checkInterval = checkInterval
    }

    /// Every fix at the receiver's own rate: what a source does unless adjusted.
    public static let everyFix = SourceDemand()

    /// The check interval of `PositioningMethod.significantChanges`.
    public static let significantChangeInterval = Duration.seconds(60)

    /// The receiver cycle for Core Location's `desiredAccuracy`, metres (see the type).
    public static func receiverCycle(forDesiredAccuracy accuracy: Distance) -> Duration? {
        if accuracy.meters <= 10 { return nil } // best, best for navigation (negative), ≤ 10 m
        return accuracy.meters <= 100 ? .seconds(5) : .seconds(10)
    }
}

/// A source that can make fewer fixes when asked (`SourceDemand`): gpsd and the replays.
public protocol DemandAdjustableSource: PositionSource {
    /// This source, its runs meeting `demand`; `.everyFix` is the source itself.
    func adjusted(to demand: SourceDemand) -> any PositionSource
}

/// When a replay's next fix is wanted under a `checkInterval`: the first fix, then the first
/// at least the interval (by fix time) after the last one delivered.
struct CheckIntervalSkipper: Sendable {
    let interval: Duration?
    private var nextDue: Date?

    init(_ interval: Duration?) { self.interval = interval }

    /// Whether the fix stamped `time` is delivered; a delivered fix starts the next rest.
    mutating func wants(_ time: Date) -> Bool {
        guard let interval else { return true }
        if let nextDue, time < nextDue { return false }
        nextDue = time.addingTimeInterval(interval.seconds)
        return true
    }
}
