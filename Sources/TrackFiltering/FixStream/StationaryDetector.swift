public import GeoCore
import Platform

/// Decides from a stream of fixes when the device has stopped and when it moves again, so live
/// delivery can pause (Core Location's `pausesLocationUpdatesAutomatically`; seed 001: one update
/// with `isStationary`, then silence, then updates again once the device moves).
///
/// Feed it every fix the source delivered, not only those a track filter accepted: a filter
/// holds back the jitter of a still device, which is exactly what shows that it is still.
///
/// The rule: a stop is the run of fixes since the last movement; its centre is their mean. The
/// device is stationary once the stop has lasted `delay` with every fix within `radius` plus
/// twice its own 68 % accuracy (capped at `maximumJitter`; twice the 68 % radius of a Gaussian
/// fix holds about 99 % of them) of that centre and no reported speed above
/// `movingSpeed`, and the means of its first and second halves within `radius` plus that
/// accuracy of each other (a slow walk stays within a running mean that follows it; if the
/// halves differ, the first is dropped). It moves (the stop starts again at that fix, and a
/// pause ends) on a reported speed above `movingSpeed` or on two fixes in a row outside that
/// circle: one fix outside is an outlier and changes nothing.
/// Time comes from the fixes' timestamps only; a fix with a non-finite position or time, or
/// not later than the last one used, is ignored.
///
/// Unlike ``StationaryRule``, which holds fixes back while the device is still (so a track
/// does not wander), the detector drops nothing: it only reports the two transitions.
public struct StationaryDetector: Sendable {
    /// When a device counts as stopped.
    public struct Parameters: Sendable, Hashable {
        /// How long fixes must stay still before the device counts as stationary; nil never pauses.
        public var delay: Duration?
        /// The radius around where the device stopped that still counts as "not moving".
        public var radius: Distance
        /// The largest accuracy allowance (twice a fix's 68 % accuracy) added to `radius`, so one
        /// wild fix with a huge error radius does not hide real movement.
        public var maximumJitter: Distance
        /// A reported ground speed above this means moving, whatever the positions say.
        public var movingSpeed: Speed

        public init(delay: Duration?, radius: Distance, maximumJitter: Distance, movingSpeed: Speed) {
            self.delay = delay
            self.radius = radius
            self.maximumJitter = maximumJitter
            self.movingSpeed = movingSpeed
        }

        // The presets carry the names of Core Location's `CLLocationUpdate.LiveConfiguration`
        // members (and of the ``TrackFilterConfiguration`` presets); the numbers are LocationKit's
        // own. Each pauses a person who stops walking within 3 minutes and resumes at the first
        // fix whose Doppler speed says they walk on (1.4 m/s), which issue 33 asks of every preset.

        /// General use: still for 60 s within 15 m (+ accuracy up to 25 m), moving above 1 m/s.
        public static let `default` = Parameters(delay: .seconds(60), radius: .meters(15), maximumJitter: .meters(25),
                                                 movingSpeed: .metersPerSecond(1))
        /// Driving: traffic lights last up to about 2 minutes, so pause only after 150 s within
        /// 20 m (+ accuracy up to 30 m); moving above 1 m/s (a driver who gets out and walks moves).
        public static let automotiveNavigation = Parameters(delay: .seconds(150), radius: .meters(20), maximumJitter: .meters(30),
                                                            movingSpeed: .metersPerSecond(1))
        /// Boats, trains and other non-road travel: 120 s within 25 m (+ accuracy up to 30 m);
        /// moving above 1 m/s.
        public static let otherNavigation = Parameters(delay: .seconds(120), radius: .meters(25), maximumJitter: .meters(30),
                                                       movingSpeed: .metersPerSecond(1))
        /// Walking and running: a stop is short and small, so 30 s within 8 m (+ accuracy up to
        /// 15 m); moving above 0.6 m/s (a slow walk is about 1 m/s).
        public static let fitness = Parameters(delay: .seconds(30), radius: .meters(8), maximumJitter: .meters(15),
                                               movingSpeed: .metersPerSecond(0.6))
        /// Aircraft: never stationary (a holding pattern is not a stop).
        public static let airborne = Parameters(delay: nil, radius: .meters(50), maximumJitter: .meters(50),
                                                movingSpeed: .metersPerSecond(5))
    }

    /// A change of state caused by a fix.
    public enum Transition: Sendable, Hashable { case becameStationary, resumedMoving }

    public let parameters: Parameters
    /// Whether the device currently counts as stationary.
    public private(set) var isStationary = false
    /// The stop in progress: a local frame at its first fix, the running sums of its fixes
    /// (metres east and north in that frame) and its start time.
    private var frame: LocalFrame?
    private var start = Date.distantPast
    private var count = 0.0, east = 0.0, north = 0.0
    /// The stop's fixes until it is declared (seconds since `start`, metres east and north), for
    /// the drift test.
    private var fixes: [(t: Double, east: Double, north: Double)] = []
    /// Fixes in a row outside the stop's circle.
    private var outside = 0
    private var lastDate: Date?

    public init(_ parameters: Parameters) { self.parameters = parameters }

    /// Feeds one fix; returns the state change it causes, if any.
    /// - Complexity: O(1) amortised, O(n) for the n fixes of a stop when its halves are
    ///   compared (memory: the fixes of up to twice `delay` until the stop is declared).
    public mutating func update(with location: Location) -> Transition? {
        guard parameters.delay != nil, location.coordinate.latitude.isFinite, location.coordinate.longitude.isFinite,
              location.timestamp.timeIntervalSince1970.isFinite else { return nil }
        if let lastDate, location.timestamp <= lastDate { return nil }
        lastDate = location.timestamp
        if let speed = location.speed, speed > parameters.movingSpeed { return moved(to: location) }
        guard let frame else {
            begin(at: location)
            return nil
        }
        let p = frame.point(for: location.coordinate)
        let de = p.east - east / count, dn = p.north - north / count
        let jitter = min(2 * max(location.horizontalAccuracy?.meters ?? 0, 0), parameters.maximumJitter.meters)
        let limit = parameters.radius.meters + (jitter.isNaN ? 0 : jitter)
        if de * de + dn * dn > limit * limit {
            outside += 1
            return outside >= 2 ? moved(to: location) : nil
        }
        outside = 0
        count += 1
        east += p.east
        north += p.north
        guard !isStationary, let delay = parameters.delay else { return nil }
        let elapsed = location.timestamp.timeIntervalSince(start)
        fixes.append((elapsed, p.east, p.north))
        guard elapsed >= delay.seconds else { return nil }
        // A slow walk stays within a running mean that follows it: the stop's two halves must
        // agree within radius + accuracy, else its first half is dropped and it goes on.
        let half = elapsed / 2
        let firstHalf = fixes.filter { $0.t < half }, secondHalf = fixes.filter { $0.t >= half }
        if let a = Self.mean(firstHalf), let b = Self.mean(secondHalf) {
            let drift = ((a.east - b.east) * (a.east - b.east) + (a.north - b.north) * (a.north - b.north)).squareRoot()
            if drift > parameters.radius.meters + (jitter.isNaN ? 0 : jitter / 2) {
                restart(from: secondHalf)
                return nil
            }
        }
        isStationary = true
        fixes = []
        return .becameStationary
    }

    private static func mean(_ points: [(t: Double, east: Double, north: Double)]) -> (east: Double, north: Double)? {
        guard !points.isEmpty else { return nil }
        let n = Double(points.count)
        return (points.reduce(0) { $0 + $1.east } / n, points.reduce(0) { $0 + $1.north } / n)
    }

    /// Makes `kept` (the later fixes of the stop) the stop.
    private mutating func restart(from kept: [(t: Double, east: Double, north: Double)]) {
        guard let first = kept.first else { return }
        start = start.addingTimeInterval(first.t)
        fixes = kept.map { ($0.t - first.t, $0.east, $0.north) }
        count = Double(kept.count)
        east = kept.reduce(0) { $0 + $1.east }
        north = kept.reduce(0) { $0 + $1.north }
    }

    /// Forgets the stop in progress (after a gap or a source switch).
    public mutating func reset() {
        frame = nil
        fixes = []
        outside = 0
        isStationary = false
    }

    private mutating func moved(to location: Location) -> Transition? {
        begin(at: location)
        guard isStationary else { return nil }
        isStationary = false
        return .resumedMoving
    }

    private mutating func begin(at location: Location) {
        frame = LocalFrame(origin: location.coordinate)
        start = location.timestamp
        count = 1
        east = 0
        north = 0
        outside = 0
        fixes = [(0, 0, 0)]
    }
}
