import Foundation
public import GeoCore
public import TrackFiltering

/// Replays a list of positions — a GPX track, a `PositionLog`, fixes made in code — (HERE's
/// `NMALoggedPositionSource`): paced by their timestamps, faster by a speed factor, or as fast
/// as possible, with switchable faults. The `gpx:` source URI reads a GPX file into one.
///
/// While `faults.isStationary` is on, the replay pauses and the last position is repeated every
/// `stationaryInterval` with realistic jitter; later fixes are shifted by the pause, so time
/// never runs backwards. While `faults.isPositionLost` is on, the replay runs on but delivers
/// nothing (one `.lost`, then silence).
///
/// Adjusted to a `SourceDemand` with a `checkInterval` (significant changes), the replay skips
/// the fixes between checks — time still passes as paced, nothing is delivered.
public final class LocationReplaySource: BatchPositionSource, DemandAdjustableSource {
    public let name: String
    /// The fixes, in delivery order.
    public let locations: [Location]
    public let pacing: ReplayPacing
    public var isReplayedAsFastAsPossible: Bool { pacing == .asFastAsPossible }
    /// How often a stationary device repeats its position.
    public let stationaryInterval: Duration
    /// Switch these while the source runs.
    public let faults = SimulationFaults()

    private let clock: SourceClock
    private let runs = RunCounter()

    /// Creates a replay of `locations`.
    /// - Throws: `PositioningError.invalidConfiguration` for a speed factor that is not positive.
    public init(locations: [Location], pacing: ReplayPacing = .realTime, stationaryInterval: Duration = .seconds(1),
                clock: SourceClock = .continuous, name: String = "replay") throws(PositioningError) {
        try pacing.validate()
        self.locations = locations
        self.pacing = pacing
        self.stationaryInterval = stationaryInterval
        self.clock = clock
        self.name = name
    }

    /// The number of runs currently producing fixes.
    public var activeRuns: Int { runs.value }

    /// Runs the replay on the batch path: an `.asFastAsPossible` replay yields up to
    /// `EventBatchOutput.capacity` events per batch, a paced one each event before its wait.
    public func eventBatches() -> AsyncThrowingStream<[PositionSourceEvent], any Error> { eventBatches(meeting: .everyFix) }

    public func adjusted(to demand: SourceDemand) -> any PositionSource {
        demand.checkInterval == nil ? self : AdjustedReplay(base: self, demand: demand)
    }

    /// A run that delivers only the fixes `demand.checkInterval` wants.
    fileprivate func eventBatches(meeting demand: SourceDemand) -> AsyncThrowingStream<[PositionSourceEvent], any Error> {
        runs.stream(bufferingPolicy: .countingUnbounded) { [self] continuation in
            var output = EventBatchOutput(continuation)
            var checks = CheckIntervalSkipper(demand.checkInterval)
            let fast = pacing == .asFastAsPossible
            var jitter = NoiseState(noise: .init(sigma: .meters(2), correlationTime: .seconds(10), seed: 11), interval: stationaryInterval)
            var shift: TimeInterval = 0 // time added by stationary pauses
            var lostReported = false
            var index = 0
            var last: Location?
            while index < locations.count {
                try Task.checkCancellation()
                if faults.isStationary, let held = last {
                    shift += stationaryInterval.seconds
                    var fix = held
                    let offset = jitter.next()
                    fix.coordinate = LocalTangentPlane(origin: held.coordinate).coordinate(of: ENU(east: offset.east, north: offset.north)).coordinate
                    fix.timestamp = held.timestamp.addingTimeInterval(shift)
                    fix.speed = .zero
                    fix.course = nil
                    if !faults.isPositionLost, checks.wants(fix.timestamp) { output.append(.location(fix)) }
                    await output.flushPaced()
                    try await clock.pace(pacing, after: stationaryInterval)
                    continue
                }
                var fix = locations[index]
                fix.timestamp = fix.timestamp.addingTimeInterval(shift)
                if faults.isPositionLost {
                    if !lostReported { output.append(.lost) }
                    lostReported = true
                } else {
                    lostReported = false
                    if checks.wants(fix.timestamp) { output.append(.location(fix)) }
                }
                last = locations[index]
                index += 1
                if fast {
                    // Let the consumers run once per batch; `flushPaced` holds back when they lag.
                    if output.isFull {
                        await output.flushPaced()
                        await Task.yield()
                    }
                } else {
                    output.flush()
                    if index < locations.count {
                        try await clock.pace(pacing, from: locations[index - 1].timestamp, to: locations[index].timestamp)
                    }
                }
            }
            output.flush()
        }
    }
}

/// A replay whose runs meet a `SourceDemand` (`LocationReplaySource.adjusted(to:)`).
private struct AdjustedReplay: BatchPositionSource {
    let base: LocationReplaySource
    let demand: SourceDemand
    var name: String { base.name }
    var isReplayedAsFastAsPossible: Bool { base.isReplayedAsFastAsPossible }
    func eventBatches() -> AsyncThrowingStream<[PositionSourceEvent], any Error> { base.eventBatches(meeting: demand) }
}
