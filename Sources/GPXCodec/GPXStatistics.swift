import Platform
public import GeoCore

/// Summary numbers of the tracks in a GPX file.
///
/// Definitions follow gpxpy (`GPX.get_points_no`, `length_2d`, `length_3d`, `get_duration`,
/// `get_uphill_downhill`) so results can be checked against it, with these deliberate
/// differences:
/// - lengths are WGS84 geodesics (Karney 2013; legs under 1 km from their chord within 1e-9
///   relative, `Geodesic.distance(from:to:)`, each point prepared once) instead of gpxpy's flat approximation on a
///   sphere of the equatorial radius (which reads 0.1–0.3 % off at mid latitudes);
/// - moving time counts an interval as moving when its *2D* speed exceeds 1 km/h (gpxpy's
///   threshold), where gpxpy uses the 3D distance when both elevations are non-zero, so
///   elevation noise does not turn standing still into movement;
/// - maximum speed is the raw maximum of 2D speeds between consecutive timed points, where
///   gpxpy's default drops legs whose length is over 1.5 σ from the mean and then takes the
///   95th percentile (its `raw=True` is closest to ours);
/// - bounds are the plain minimum / maximum of latitudes and longitudes (as gpxpy), not
///   antimeridian-aware.
/// Only track points count, as in gpxpy; routes and waypoints are only counted.
public struct GPXStatistics: Hashable, Sendable {
    /// Track points in all tracks and segments.
    public var points = 0
    public var tracks = 0
    public var segments = 0
    public var routes = 0
    public var waypoints = 0
    /// Sum of the geodesic lengths of all segments (gaps between segments do not count).
    public var length2D = Distance.zero
    /// Like `length2D` with each leg lengthened by its elevation change, √(d² + Δh²), where
    /// both points have an elevation.
    public var length3D = Distance.zero
    /// Sum over segments of the time from the first to the last timed point; nil when no
    /// segment has two timed points. Never negative: a segment whose last time is before its
    /// first (a receiver's clock reset, a merged file) counts 0, as in gpxpy's `get_duration`.
    public var duration: Duration?
    /// Sum of the intervals between consecutive timed points whose 2D speed exceeds 1 km/h;
    /// nil without times.
    public var movingTime: Duration?
    /// Total climb after gpxpy's smoothing (each elevation replaced by 0.3 · previous +
    /// 0.4 · itself + 0.3 · next within its segment, the ends kept); nil without elevations.
    public var elevationGain: Distance?
    /// Total descent, smoothed as `elevationGain`.
    public var elevationLoss: Distance?
    /// Highest 2D speed between consecutive timed points with a positive time step.
    public var maxSpeed: Speed?
    /// Latitude / longitude extremes of the track points.
    public var bounds: BoundingBox?

    public init() {}

    /// Statistics of a document in memory.
    /// - Complexity: O(n) in the number of points.
    public init(_ document: GPXDocument) {
        var acc = GPXStatisticsAccumulator()
        acc.add(.metadata(document.metadata))
        for p in document.waypoints { acc.add(.waypoint(p)) }
        for r in document.routes { acc.add(.routeStart); acc.add(.routeEnd(r.info)) }
        for t in document.tracks {
            acc.add(.trackStart)
            for s in t.segments {
                acc.add(.segmentStart)
                for p in s.points { acc.add(.trackPoint(p)) }
                acc.add(.segmentEnd(nil))
            }
            acc.add(.trackEnd(t.info))
        }
        self = acc.statistics
    }
}

/// Computes `GPXStatistics` from a stream of `GPXEvent`s with constant memory.
public struct GPXStatisticsAccumulator: Sendable {
    private var s = GPXStatistics()
    /// What a leg needs of the previous point (not the whole point: copying its strings and
    /// extensions per point cost more than the geodesic).
    private var previous: (point: Geodesic.ChordPoint, elevation: Double?, time: Date?)?
    private var firstTime: Date?, lastTime: Date?
    private var duration = 0.0, moving = 0.0
    private var sawTimedPair = false, sawDuration = false
    private var gain = 0.0, loss = 0.0, sawElevation = false
    // The last two raw elevations and the last smoothed one, for the 3-point smoothing.
    private var e1: Double?, e2: Double?, lastSmoothed: Double?
    private var south = Double.infinity, north = -Double.infinity, west = Double.infinity, east = -Double.infinity
    private var maxSpeed = -1.0
    /// `movingThreshold` in m/s, kept here: a static is a lazily initialised global, checked on
    /// every access in the per-point path.
    private let movingSpeed = GPXStatisticsAccumulator.movingThreshold.metersPerSecond

    /// gpxpy's `DEFAULT_STOPPED_SPEED_THRESHOLD`, 1 km/h.
    public static let movingThreshold = Speed.kilometersPerHour(1)

    public init() {}

    /// Adds one event.
    /// - Complexity: O(1); one geodesic length per track point.
    public mutating func add(_ event: GPXEvent) {
        switch event {
        case .waypoint: s.waypoints += 1
        case .routeStart: s.routes += 1
        case .trackStart: s.tracks += 1
        case .segmentStart:
            s.segments += 1
            previous = nil; firstTime = nil; lastTime = nil
            e1 = nil; e2 = nil; lastSmoothed = nil
        case .segmentEnd:
            if let first = firstTime, let last = lastTime {
                duration += max(0, last.timeIntervalSince(first))
                sawDuration = true
            }
            // The last elevation is kept unsmoothed.
            if let e2 { climb(to: e2) }
            previous = nil; firstTime = nil; lastTime = nil
            e1 = nil; e2 = nil; lastSmoothed = nil
        case .trackPoint(let p): addPoint(p)
        default: break
        }
    }

    private mutating func addPoint(_ p: GPXPoint) {
        s.points += 1
        let lat = p.coordinate.latitude, lon = p.coordinate.longitude
        south = min(south, lat); north = max(north, lat); west = min(west, lon); east = max(east, lon)
        if let t = p.time {
            if firstTime == nil { firstTime = t }
            lastTime = t
        }
        let here = Geodesic.wgs84.chordPoint(latitude: lat, longitude: lon)
        if let q = previous {
            let d = Geodesic.wgs84.distance(from: q.point, to: here)
            s.length2D.meters += d
            if let h0 = q.elevation, let h1 = p.elevation?.meters {
                s.length3D.meters += (d * d + (h1 - h0) * (h1 - h0)).squareRoot()
            } else {
                s.length3D.meters += d
            }
            if let t0 = q.time, let t1 = p.time {
                sawTimedPair = true
                let dt = t1.timeIntervalSince(t0)
                if dt > 0 {
                    let v = d / dt
                    if v > movingSpeed { moving += dt }
                    maxSpeed = max(maxSpeed, v)
                }
            }
        }
        if let e = p.elevation?.meters {
            sawElevation = true
            // Smooth the middle one of (e1, e2, e) now that its successor is known.
            if let a = e1, let b = e2 {
                climb(to: a * 0.3 + b * 0.4 + e * 0.3)
            } else if let b = e2 {
                climb(to: b) // the first elevation of a segment is kept unsmoothed
            }
            e1 = e2
            e2 = e
        }
        previous = (here, p.elevation?.meters, p.time)
    }

    private mutating func climb(to smoothed: Double) {
        if let last = lastSmoothed {
            let d = smoothed - last
            if d > 0 { gain += d } else { loss -= d }
        }
        lastSmoothed = smoothed
    }

    /// The statistics of everything added so far (a segment still open counts as far as its
    /// points go, except its duration and its last elevation step).
    public var statistics: GPXStatistics {
        var r = s
        if sawDuration { r.duration = .seconds(duration) }
        if sawTimedPair { r.movingTime = .seconds(moving) }
        if sawElevation { r.elevationGain = .meters(gain); r.elevationLoss = .meters(loss) }
        if maxSpeed >= 0 { r.maxSpeed = .metersPerSecond(maxSpeed) }
        if r.points > 0 { r.bounds = try? BoundingBox(south: south, west: west, north: north, east: east) }
        return r
    }
}
