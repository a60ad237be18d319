public import Foundation
import GeoBase
public import GeoCore
public import TrackFiltering

/// Moves along a polyline at `movementSpeed`, emitting a fix every `updateInterval`
/// (HERE's `NMARoutePositionSource`), with optional realistic noise and switchable faults.
///
/// Position, course and speed come from the WGS84 geodesic of each polyline segment. Noise is
/// first-order Gauss–Markov (exponentially correlated with `noise.correlationTime`), the error
/// model of real GNSS receivers rather than independent jumps. While `faults.isStationary`
/// is on, the simulated device stands still (with jitter) and resumes where it stopped; while
/// `faults.isPositionLost` is on, it keeps moving but reports nothing. Without noise a fix
/// reports a 1 m accuracy.
public final class RouteSimulationSource: BatchPositionSource {
    /// Realistic position error added to each fix.
    public struct Noise: Sendable, Hashable {
        /// One-sigma horizontal error per axis.
        public var sigma: Distance
        /// How long an error persists (the Gauss–Markov time constant).
        public var correlationTime: Duration
        /// Seed, so a run is repeatable.
        public var seed: UInt64

        public init(sigma: Distance = .meters(3), correlationTime: Duration = .seconds(30), seed: UInt64 = 1) {
            self.sigma = sigma
            self.correlationTime = correlationTime
            self.seed = seed
        }
    }

    public let name: String
    /// The route, at least two points.
    public let polyline: [Coordinate]
    /// Speed along the route.
    public let movementSpeed: Speed
    /// Time between fixes.
    public let updateInterval: Duration
    public let noise: Noise?
    /// How fixes are paced on the source's clock: `.realTime` is one fix per `updateInterval`,
    /// a speed factor divides that, `.asFastAsPossible` delivers every fix at once (timestamps
    /// still `updateInterval` apart, for benchmarks and replays).
    public let pacing: ReplayPacing
    public var isReplayedAsFastAsPossible: Bool { pacing == .asFastAsPossible }
    /// Timestamp of the first fix.
    public let startDate: Date
    /// Switch these while the source runs.
    public let faults = SimulationFaults()

    private let clock: SourceClock
    private let cumulative: [Double]
    private let runs = RunCounter()

    /// Creates a route simulation.
    /// - Throws: `PositioningError.invalidConfiguration` for fewer than two points, a
    ///   non-positive speed, interval or speed factor.
    public init(polyline: [Coordinate], movementSpeed: Speed, updateInterval: Duration = .seconds(1), noise: Noise? = nil,
                pacing: ReplayPacing = .realTime, startDate: Date, clock: SourceClock = .continuous, name: String = "route") throws(PositioningError) {
        guard polyline.count >= 2 else {
            throw PositioningError(.invalidConfiguration, "a route needs at least two points, got \(polyline.count)")
        }
        guard movementSpeed.metersPerSecond > 0, movementSpeed.metersPerSecond.isFinite, updateInterval > .zero else {
            throw PositioningError(.invalidConfiguration, "movement speed and update interval must be positive")
        }
        try pacing.validate()
        self.polyline = polyline
        self.movementSpeed = movementSpeed
        self.updateInterval = updateInterval
        self.noise = noise
        self.pacing = pacing
        self.startDate = startDate
        self.clock = clock
        self.name = name
        var cumulative = [0.0]
        for i in 1..<polyline.count { cumulative.append(cumulative[i - 1] + polyline[i - 1].distance(to: polyline[i]).meters) }
        self.cumulative = cumulative
    }

    /// A simulation along a GeoJSON LineString (a Feature holding one, or a geometry).
    /// - Throws: `PositioningError.invalidConfiguration` when the document holds no LineString.
    public convenience init(geoJSON: GeoJSON, movementSpeed: Speed, updateInterval: Duration = .seconds(1), noise: Noise? = nil,
                            pacing: ReplayPacing = .realTime, startDate: Date, clock: SourceClock = .continuous) throws(PositioningError) {
        guard let line = geoJSON.firstLineString else { throw PositioningError(.invalidConfiguration, "the GeoJSON holds no LineString") }
        try self.init(polyline: line, movementSpeed: movementSpeed, updateInterval: updateInterval, noise: noise,
                      pacing: pacing, startDate: startDate, clock: clock, name: "route:geojson")
    }

    /// Length of the route.
    public var length: Distance { .meters(cumulative[cumulative.count - 1]) }

    /// The number of runs currently producing fixes.
    public var activeRuns: Int { runs.value }

    /// Where the simulated device is after travelling `distance` along the route, with the
    /// course of the segment it is on.
    /// - Complexity: O(log n) in the number of route points.
    public func position(at distance: Distance) -> (coordinate: Coordinate, course: Bearing) {
        let s = min(max(distance.meters, 0), length.meters)
        // The last segment whose start is at or before s.
        var lo = 0, hi = cumulative.count - 2
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if cumulative[mid] <= s { lo = mid } else { hi = mid - 1 }
        }
        let line = Geodesic.wgs84.inverse(from: polyline[lo], to: polyline[lo + 1])
        let along = s - cumulative[lo]
        let point = Geodesic.wgs84.direct(from: polyline[lo], bearing: line.initialBearing, distance: .meters(along))
        return (point.coordinate, point.finalBearing)
    }

    /// Runs the simulation on the batch path: as fast as possible it yields up to
    /// `EventBatchOutput.capacity` events per batch, paced each event before its wait.
    public func eventBatches() -> AsyncThrowingStream<[PositionSourceEvent], any Error> {
        runs.stream(bufferingPolicy: .countingUnbounded) { [self] continuation in
            var output = EventBatchOutput(continuation)
            let fast = pacing == .asFastAsPossible
            var error = NoiseState(noise: noise, interval: updateInterval)
            // Standing still always jitters, as a real receiver does: the route's noise, else 2 m.
            var jitter = NoiseState(noise: noise ?? Noise(sigma: .meters(2), correlationTime: .seconds(10), seed: 7), interval: updateInterval)
            var steps = 0.0, travelled = 0.0, elapsed = Duration.zero
            var lostReported = false
            let step = movementSpeed.metersPerSecond * updateInterval.seconds
            while true {
                try Task.checkCancellation()
                let stationary = faults.isStationary
                let here = position(at: .meters(travelled))
                if faults.isPositionLost {
                    if !lostReported { output.append(.lost) }
                    lostReported = true
                } else {
                    lostReported = false
                    let offset = stationary && noise == nil ? jitter.next() : error.next()
                    let plane = LocalTangentPlane(origin: here.coordinate)
                    let noisy = plane.coordinate(of: ENU(east: offset.east, north: offset.north)).coordinate
                    output.append(.location(Location(
                        coordinate: noisy,
                        timestamp: startDate.addingTimeInterval(elapsed.seconds),
                        horizontalAccuracy: .meters(noise.map { $0.sigma.meters * 1.5096 } ?? 1), // 68 % radius of a 2D Gaussian: σ√(−2 ln 0.32)
                        speed: .metersPerSecond(stationary ? 0 : movementSpeed.metersPerSecond),
                        course: stationary ? nil : here.course,
                        fixMode: .threeDimensional,
                        fixQuality: .simulated)))
                }
                if !stationary {
                    // Micrometre slack: the summed leg lengths may differ from n · step in the last bit.
                    if travelled >= length.meters - 1e-6 {
                        output.flush()
                        return
                    }
                    steps += 1
                    travelled = min(steps * step, length.meters)
                }
                elapsed += updateInterval
                if fast {
                    guard output.isFull else { continue }
                    await output.flushPaced()
                } else {
                    output.flush()
                }
                try await clock.pace(pacing, after: updateInterval)
            }
        }
    }
}

/// Exponentially correlated (first-order Gauss–Markov) horizontal error, per axis:
/// e(k+1) = φ e(k) + σ √(1 − φ²) w, φ = exp(−Δt/τ), so the stationary variance is σ².
struct NoiseState {
    private var rng: SplitMix64
    private let sigma: Double, phi: Double
    private var east = 0.0, north = 0.0

    init(noise: RouteSimulationSource.Noise?, interval: Duration) {
        rng = SplitMix64(seed: noise?.seed ?? 0)
        sigma = noise?.sigma.meters ?? 0
        phi = noise.map { exp(-interval.seconds / max($0.correlationTime.seconds, 1e-9)) } ?? 0
        if sigma > 0 {
            east = sigma * rng.gaussian()
            north = sigma * rng.gaussian()
        }
    }

    mutating func next() -> (east: Double, north: Double) {
        guard sigma > 0 else { return (0, 0) }
        let k = sigma * (1 - phi * phi).squareRoot()
        east = phi * east + k * rng.gaussian()
        north = phi * north + k * rng.gaussian()
        return (east, north)
    }
}
