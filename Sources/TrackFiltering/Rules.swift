public import GeoCore
public import Platform

/// Drops fixes whose horizontal accuracy is negative (Core Location marks invalid
/// coordinates so), NaN, or — unless told otherwise — missing.
/// Source: seed article §2 (`horizontalAccuracy < 0` → discard).
public struct ValidAccuracyRule: TrackFilter {
    /// Whether a fix without any accuracy is dropped too.
    public var rejectsMissing: Bool

    public init(rejectsMissing: Bool = true) { self.rejectsMissing = rejectsMissing }

    public func evaluate(_ input: FilterInput) -> RejectionReason? {
        guard let m = input.fix.horizontalAccuracy?.meters else { return rejectsMissing ? .invalidAccuracy : nil }
        return m >= 0 ? nil : .invalidAccuracy
    }
}

/// Drops fixes whose 68 % horizontal radius is worse than a limit.
/// Source: seed article §2 (keep ≤ 100 m; indoor fixes are ~60 m at best).
public struct MaximumAccuracyRule: TrackFilter {
    /// The largest acceptable horizontal accuracy.
    public var limit: Distance

    public init(limit: Distance) { self.limit = limit }

    public func evaluate(_ input: FilterInput) -> RejectionReason? {
        guard let m = input.accuracy else { return nil }
        return m > limit.meters ? .inaccurate : nil
    }
}

/// Drops fixes older than `maximumAge` when they arrive (cached fixes), judged against the
/// stream's own clock offset; without receive times (offline) it passes everything.
///
/// A fix's lag is `receivedAt − timestamp`. Over a live stream it is steady (the latency)
/// whatever the receiver's clock says, so the rule keeps the stream's pace — the least lag of
/// the last `paceWindow` fixes, `clockOffset` — and drops a fix that lags it by more than
/// `maximumAge`. A replayed recording (fixes months old) or a receiver with a wrong clock
/// therefore flows, while a cached fix far older than the stream's pace is still dropped.
/// Until a fix has been seen the pace is 0 (receiver and host clocks agree), so a cached fix
/// that opens the stream is dropped too. `observe(_:)` lets the pace be learned from fixes
/// another rule already dropped (the warm-up's).
///
/// Source: seed article §3. (Its sample tests `timestamp.timeIntervalSinceNow >= 5`, which is
/// negative for past fixes and so never fires; the age is `now − timestamp`.)
public struct StaleFixRule: TrackFilter {
    /// The most a fix may lag the stream's pace on arrival.
    public var maximumAge: Duration
    /// How many recent fixes the pace is the least lag of: long enough to ride out a burst of
    /// cached fixes, short enough to follow a receiver whose clock jumps.
    public static let paceWindow = 16
    private let limit: Double
    /// The lags of the last `paceWindow` fixes, seconds (a ring, oldest overwritten).
    private var lags: [Double] = []
    private var next = 0

    public init(maximumAge: Duration) {
        self.maximumAge = maximumAge
        limit = maximumAge.seconds
        lags.reserveCapacity(Self.paceWindow)
    }

    /// The stream's clock offset: the least lag (receive time − fix time) of the recent fixes,
    /// seconds; nil before the first fix with a receive time.
    public var clockOffset: Double? { lags.min() }

    /// How far `input` lags the stream's pace, seconds (nil without a receive time).
    public func age(of input: FilterInput) -> Double? {
        guard let now = input.receivedAt else { return nil }
        return max(0, now.timeIntervalSince(input.fix.timestamp) - (clockOffset ?? 0))
    }

    public mutating func evaluate(_ input: FilterInput) -> RejectionReason? {
        defer { observe(input) }
        guard let age = age(of: input) else { return nil }
        return age > limit ? .stale : nil
    }

    /// Learns the stream's pace from a fix without judging it.
    public mutating func observe(_ input: FilterInput) {
        guard let now = input.receivedAt else { return }
        let lag = now.timeIntervalSince(input.fix.timestamp)
        guard lag.isFinite else { return }
        if lags.count < Self.paceWindow {
            lags.append(lag)
        } else {
            lags[next] = lag
            next = (next + 1) % Self.paceWindow
        }
    }
}

/// Drops everything in the first `duration` after updates start: receivers deliver cached
/// and unconverged fixes then, sometimes with fresh timestamps.
///
/// Time runs on the fix timestamps — the receiver's own time, in which it converges — so a
/// replay played faster or slower than it was recorded warms up over the same fixes. The
/// start is the injected `start`, else the first fix's timestamp. Source: seed article §4 (drop the first 5–10 s);
/// Freeletics 2019 (the first 10–20 fixes are poor).
public struct WarmUpRule: TrackFilter {
    /// How long after the start fixes are dropped.
    public var duration: Duration
    /// When updates started; nil = at the first fix.
    public private(set) var start: Date?
    private let limit: Double

    public init(duration: Duration, start: Date? = nil) {
        self.duration = duration
        self.start = start
        limit = duration.seconds
    }

    public mutating func evaluate(_ input: FilterInput) -> RejectionReason? {
        let now = input.fix.timestamp
        guard let start else {
            self.start = now
            return limit > 0 ? .warmUp : nil
        }
        // A fix timestamped before the start is not of the warm-up: later rules judge it.
        return (0..<limit).contains(now.timeIntervalSince(start)) ? .warmUp : nil
    }
}

/// Drops fixes timestamped before (out of order) or at (duplicate) the last accepted fix.
/// Source: seed article sample (`latestLocation.timestamp > location.timestamp` → discard).
public struct TimestampOrderRule: TrackFilter {
    public init() {}

    public func evaluate(_ input: FilterInput) -> RejectionReason? {
        guard input.previous != nil else { return nil }
        if input.secondsSincePrevious < 0 { return .outOfOrder }
        if input.secondsSincePrevious == 0 { return .duplicateTimestamp }
        return nil
    }
}

/// Drops a fix that moved less than `fraction` × the previous fix's accuracy radius unless it
/// is more accurate than that fix: jitter inside the error circle is not movement.
///
/// Source: seed article §5 and sample (`distance < latestAccuracy / 2`). The sample's second
/// test (`latestAccuracy >= location.horizontalAccuracy`) drops the *better* fixes, contrary
/// to its own comment; this rule keeps a better fix, as the issue states.
public struct AccuracyRadiusRule: TrackFilter {
    /// The share of the previous accuracy radius treated as "not moved" (the seed uses 0.5).
    public var fraction: Double

    public init(fraction: Double = 0.5) { self.fraction = fraction }

    public func evaluate(_ input: FilterInput) -> RejectionReason? {
        guard let previous = input.previousAccuracy else { return nil }
        let better = (input.accuracy ?? .infinity) < previous
        return input.distanceFromPrevious < fraction * previous && !better ? .insideAccuracyRadius : nil
    }
}

/// Drops fixes closer than `minimum` to the last accepted one (Core Location's
/// `distanceFilter`, applied to the delivered track). Source: seed article §1, §5.
public struct DistanceFilterRule: TrackFilter {
    /// The least movement that is passed on.
    public var minimum: Distance

    public init(minimum: Distance) { self.minimum = minimum }

    public func evaluate(_ input: FilterInput) -> RejectionReason? {
        guard input.previous != nil else { return nil }
        return input.distanceFromPrevious < minimum.meters ? .belowMinimumDistance : nil
    }
}

/// Drops fixes that could only be reached from the last accepted one faster than `maximum`
/// (teleports: multipath, cell/Wi-Fi fixes, cached fixes with fresh timestamps).
///
/// The hop is shortened by both accuracy radii before dividing by the time, so honest fixes
/// with large radii are not punished. After `maximumConsecutiveRejections` rejections in a
/// row the rule gives in and accepts: the previous fix was the wrong one, or the device really
/// moved during a gap. Source: transistorsoft `maxImpliedSpeed`; traccar `filter.maxSpeed`.
public struct ImpliedSpeedRule: TrackFilter {
    /// The fastest plausible movement.
    public var maximum: Speed
    /// How many rejections in a row before the rule re-anchors at the new position.
    public var maximumConsecutiveRejections: Int
    private var consecutive = 0

    public init(maximum: Speed, maximumConsecutiveRejections: Int = 5) {
        self.maximum = maximum
        self.maximumConsecutiveRejections = maximumConsecutiveRejections
    }

    public mutating func evaluate(_ input: FilterInput) -> RejectionReason? {
        guard input.previous != nil, input.secondsSincePrevious > 0 else { return nil }
        let slack = (input.accuracy ?? 0) + (input.previousAccuracy ?? 0)
        let excess = input.distanceFromPrevious - slack
        guard excess > maximum.metersPerSecond * input.secondsSincePrevious else { return nil }
        if consecutive >= maximumConsecutiveRejections { return nil }
        consecutive += 1
        return .impliedSpeed
    }

    public mutating func accepted(_ input: FilterInput) { consecutive = 0 }
}

/// Holds the track still while the device is still, so noise cannot add distance.
///
/// "Still" means the reported (Doppler) speed is below `speedThreshold`, or, for sources that
/// report no speed, the fixes stay within `radius` of the centre of the fixes seen since the
/// stillness began. Once still for `dwell`, fixes are dropped until the device moves: with
/// Doppler, a reported speed at or above the threshold plus the fix's speed accuracy (or ten
/// fixes beyond `maximumHoldDistance`); without, two fixes in a row outside
/// `max(radius, accuracyFactor × accuracy)` of that centre that agree on where the device went:
/// the second lies nearer the first than the centre. Multipath comes in bursts of jumps in
/// unrelated directions (issue 34 §2), and a burst of two that ended the stop made the
/// Kalman filter take the next jump for the track (`geo eval filters --cases wide`, jump
/// bursts, 20 seeds: 40 of the 49 jumps `geo gpx smooth` kept came right after a held stop;
/// korita 9.1 % too long on average, 20.1 % on the worst seed, now 3.6 % and 12.5 %). A
/// departure moves away from the centre, so each fix lies nearer its predecessor than the
/// centre, and at worst one fix is held longer; a pair that disagrees leaves the second fix
/// as the one the next must agree with. The centre is the mean of the fixes seen still so
/// far, not one of them: with n fixes its error is σ/√n, so noise that wanders
/// around a stop (correlated GNSS error) is not mistaken for moving, neither before the hold
/// nor during it, where measuring from a single noisy fix would double the variance. (Judged
/// from the first fix, a stop whose fixes swing ±5 m over 40 s restarted its dwell every
/// 15–20 s and was never held.)
/// Answers HCKalmanFilter#2, dawarich#3417 (research/ASKS.md §B).
public struct StationaryRule: TrackFilter {
    /// The tunables of the rule.
    public struct Parameters: Hashable, Sendable {
        /// Below this reported speed the device counts as still.
        public var speedThreshold: Speed
        /// The `speedThreshold` of the presets for a device on foot or of no known mode of
        /// travel (default, fitness, other navigation), which the smoother's stillness test
        /// also uses (`KalmanSmoother.stillness`).
        public static let walkingStillSpeed = Speed.metersPerSecond(0.3)
        /// How long it must look still before fixes are held.
        public var dwell: Duration
        /// The least distance from the anchor that counts as leaving.
        public var radius: Distance
        /// The fix's accuracy radius times this also counts as not having left.
        public var accuracyFactor: Double

        /// With a reported speed, ten fixes in a row this far from the anchor release the hold
        /// anyway (a receiver whose Doppler is stuck at zero).
        public var maximumHoldDistance: Distance

        public init(speedThreshold: Speed, dwell: Duration, radius: Distance, accuracyFactor: Double = 2,
                    maximumHoldDistance: Distance = .meters(50)) {
            self.speedThreshold = speedThreshold
            self.dwell = dwell
            self.radius = radius
            self.accuracyFactor = accuracyFactor
            self.maximumHoldDistance = maximumHoldDistance
        }
    }

    public var parameters: Parameters
    /// Whether fixes are being held.
    public private(set) var isStationary = false
    private var stillSince: Date?
    private var farFixes = 0
    /// Without Doppler, the previous fix when it was outside the hold (leaving takes two in a
    /// row that agree), in the cluster's frame, metres.
    private var leaving: Vec2?
    /// Without Doppler, the fixes seen still: their sum in a frame at the first, and how many.
    private var cluster: (frame: LocalFrame, east: Double, north: Double, count: Int)?
    private let dwell: Double
    /// Without Doppler, how long the fixes must stay within `radius` of their centre: at least
    /// `dwell`, and `radius / speedThreshold` (a walker stays within 8 m for 6 s, so 8 m over a
    /// 5 s dwell alone would hold every walk). A device moving steadily at v is v t / 2 from
    /// the centre of its fixes after t, so this holds movement below twice the threshold
    /// (0.6 m/s for the presets): as slow as correlated GNSS error of a few metres wanders
    /// within a minute, which would otherwise add more length than the held movement has
    /// (`geo eval filters --cases sparse`, korita every 1 s: smooth 3.21 → 2.30 % too long;
    /// with 2 radius / threshold instead, 4.64 %).
    private let positionDwell: Double

    public init(_ parameters: Parameters) {
        self.parameters = parameters
        dwell = parameters.dwell.seconds
        positionDwell = max(dwell, parameters.radius.meters / parameters.speedThreshold.metersPerSecond)
    }

    public mutating func evaluate(_ input: FilterInput) -> RejectionReason? {
        guard input.previous != nil else { return nil }
        let fix = input.fix
        let exitRadius = max(parameters.radius.meters, parameters.accuracyFactor * (input.accuracy ?? 0))
        let outside = input.distanceFromPrevious > exitRadius
        let threshold = parameters.speedThreshold.metersPerSecond
        let speed = fix.speed.map(\.metersPerSecond).flatMap { $0 >= 0 ? $0 : nil }
        if isStationary {
            if let speed {
                // Doppler is the better witness: leaving needs the speed to clear the threshold
                // by its own uncertainty. Position jumps while Doppler says still are multipath,
                // unless they persist beyond `maximumHoldDistance` for ten fixes (stuck Doppler).
                let margin = fix.speedAccuracy.map(\.metersPerSecond).flatMap { $0 > 0 ? $0 : nil } ?? 0
                farFixes = input.distanceFromPrevious > parameters.maximumHoldDistance.meters ? farFixes + 1 : 0
                if speed < threshold + margin, farFixes < 10 { return .stationary }
            } else {
                let here = offsetFromCentre(fix.coordinate)
                let outsideCentre = here.map { $0.norm > exitRadius } ?? outside
                // One fix outside is as likely a jump (multipath) as a departure: the device left
                // only when the next fix is outside too and nearer that one than the centre.
                var departed = outsideCentre && leaving != nil
                if departed, let here, let previous = leaving { departed = (here - previous).norm < here.norm }
                if !departed {
                    if !outsideCentre { addToCluster(fix.coordinate) }
                    leaving = outsideCentre ? here ?? .zero : nil
                    return .stationary
                }
            }
            leaving = nil
            isStationary = false
            stillSince = nil
            cluster = nil
            farFixes = 0
            return nil
        }
        let still: Bool
        if let speed {
            still = speed < threshold && !outside
        } else if let fromCentre = distanceFromCentre(fix.coordinate) {
            // No Doppler speed: still while the fixes stay near the centre of those since the
            // stillness began.
            still = fromCentre <= parameters.radius.meters
        } else {
            still = false
        }
        guard still else {
            stillSince = speed == nil ? fix.timestamp : nil
            // Cleared only when set: storing nil over the frame costs a copy of it every fix.
            if cluster != nil { cluster = nil }
            if speed == nil { addToCluster(fix.coordinate) }
            return nil
        }
        if speed == nil { addToCluster(fix.coordinate) }
        let since = stillSince ?? fix.timestamp
        stillSince = since
        if fix.timestamp.timeIntervalSince(since) >= (speed == nil ? positionDwell : dwell) {
            isStationary = true
            return .stationary
        }
        return nil
    }

    private mutating func addToCluster(_ coordinate: Coordinate) {
        guard let c = cluster else {
            cluster = (LocalFrame(origin: coordinate), 0, 0, 1)
            return
        }
        let p = c.frame.point(for: coordinate)
        cluster = (c.frame, c.east + p.east, c.north + p.north, c.count + 1)
    }

    /// Metres from the mean of the fixes seen still (nil before any).
    private func distanceFromCentre(_ coordinate: Coordinate) -> Double? {
        offsetFromCentre(coordinate)?.norm
    }

    /// East and north metres from the mean of the fixes seen still (nil before any).
    private func offsetFromCentre(_ coordinate: Coordinate) -> Vec2? {
        guard let c = cluster else { return nil }
        let p = c.frame.point(for: coordinate), n = Double(c.count)
        return Vec2(x: p.east - c.east / n, y: p.north - c.north / n)
    }
}
