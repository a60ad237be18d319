public import GeoCore
import Platform
public import GeoBase

/// Finds visits in a stream of fixes as they arrive: an online stay-point detector.
///
/// The fixes since the device came to a place form a cluster while each new fix lies within
/// ``Configuration/radius`` of the cluster's mean (the distance and time thresholds of stay-point
/// detection, Li et al. 2008, "Mining user similarity based on location history", ACM GIS; kept
/// online with a running mean as in Hariharan & Toyama 2004). Once the cluster spans
/// ``Configuration/minimumDuration`` the visit is reported (``VisitEvent/arrival(_:)``); once
/// ``Configuration/departureFixes`` fixes in a row lie outside it, the device has left
/// (``VisitEvent/departure(_:)``, dated by the last fix at the place) and those fixes start the
/// next cluster. Fewer fixes outside are outliers and change nothing.
///
/// The dates come from the core of the stay, half the radius: until the arrival the oldest fixes
/// are dropped while they lie farther than that from the mean (a running mean takes in the
/// approach before the device stops), and the departure is the last fix that lay within it. So
/// a walker's 200 s pause, within 75 m of the spot for 306 s, is no 5-minute visit.
///
/// With the defaults (75 m, 5 minutes) a stay of minutes is found and a 90 s stop at a red light
/// is not. Fixes less precise than ``Configuration/maximumAccuracy``, with a negative accuracy
/// or not later than the last fix used are skipped. Time comes from the fixes only.
///
/// - Complexity: amortised O(1) time per fix; memory for the fixes of a stay until its arrival
///   (`minimumDuration` of them and the approach) and `departureFixes` fixes outside.
public struct VisitDetector: Sendable {
    /// The thresholds of the detector.
    public struct Configuration: Hashable, Sendable {
        /// How far from the mean of a stay a fix may lie and still belong to it.
        public var radius: Distance
        /// How long a stay must last to be a visit.
        public var minimumDuration: Duration
        /// How many fixes in a row outside the stay mean the device has left (at least 1).
        public var departureFixes: Int
        /// Fixes with a larger horizontal accuracy (68 % radius) are skipped.
        public var maximumAccuracy: Distance
        /// The radii a user may give, metres: above 0 through 10 km (`geo visits --radius`).
        public static let radii = ValidRange(above: 0, through: 10_000, unit: "m")
        /// The minimum durations a user may give, seconds: above 0 through 10⁹ s.
        public static let minimumDurations = ValidRange(above: 0, through: 1e9, unit: "s")
        /// The departure counts a user may give: 1 through 1,000 fixes in a row.
        public static let departureFixCounts = ValidRange(1...1_000, unit: "")

        public init(radius: Distance = .meters(75), minimumDuration: Duration = .seconds(300),
                    departureFixes: Int = 2, maximumAccuracy: Distance = .meters(100)) {
            self.radius = radius
            self.minimumDuration = minimumDuration
            self.departureFixes = departureFixes
            self.maximumAccuracy = maximumAccuracy
        }

        /// - Throws: `GeoCoreError` `.invalidArgument` naming the threshold that is not positive
        ///   and finite (or a departure count below 1).
        public func validate() throws(GeoCoreError) {
            guard radius.meters.isFinite, radius.meters > 0 else {
                throw GeoCoreError(.invalidArgument, "visit radius must be positive and finite, got \(radius.meters) m")
            }
            guard minimumDuration > .zero, minimumDuration.seconds.isFinite else {
                throw GeoCoreError(.invalidArgument, "visit minimum duration must be positive, got \(minimumDuration)")
            }
            guard departureFixes >= 1 else {
                throw GeoCoreError(.invalidArgument, "departure fixes must be at least 1, got \(departureFixes)")
            }
            guard maximumAccuracy.meters > 0, !maximumAccuracy.meters.isNaN else {
                throw GeoCoreError(.invalidArgument, "maximum accuracy must be positive, got \(maximumAccuracy.meters) m")
            }
        }
    }

    /// The fixes of one stay, as running sums in a local frame at its first fix; until the
    /// arrival is reported, also the fixes themselves, so that the approach can be trimmed.
    private struct Stay: Sendable {
        let frame: LocalFrame
        /// The time of the last fix within the core of the stay (half the radius from the mean).
        var lastDate: Date
        var count = 0.0, east = 0.0, north = 0.0, squares = 0.0
        /// The fixes not yet trimmed, oldest first from `head` (kept until the arrival).
        var fixes: [(east: Double, north: Double, date: Date, firstOfStream: Bool)] = []
        var head = 0

        init(_ fix: Location, firstOfStream: Bool) {
            frame = LocalFrame(origin: fix.coordinate)
            lastDate = fix.timestamp
            add(fix, firstOfStream: firstOfStream)
        }

        mutating func add(_ fix: Location, firstOfStream: Bool = false, core: Bool = true, keep: Bool = true) {
            let p = frame.point(for: fix.coordinate)
            count += 1
            east += p.east
            north += p.north
            squares += p.east * p.east + p.north * p.north
            if core { lastDate = fix.timestamp }
            if keep { fixes.append((p.east, p.north, fix.timestamp, firstOfStream)) }
        }

        /// Drops the oldest fixes while they lie farther than `radius` from the mean of the
        /// stay: the approach, whose fixes a running mean takes in before the device stops.
        mutating func trimApproach(radius: Double) {
            while fixes.count - head > 1 {
                let f = fixes[head]
                let de = f.east - east / count, dn = f.north - north / count
                guard de * de + dn * dn > radius * radius else { break }
                count -= 1
                east -= f.east
                north -= f.north
                squares -= f.east * f.east + f.north * f.north
                head += 1
            }
            if head > 64 && head * 2 > fixes.count {
                fixes.removeFirst(head)
                head = 0
            }
        }

        /// The first fix of the stay (valid until the arrival is reported).
        var first: (date: Date, firstOfStream: Bool) { (fixes[head].date, fixes[head].firstOfStream) }

        var centre: Coordinate { frame.coordinate(east: east / count, north: north / count) }

        func distance(to coordinate: Coordinate) -> Double {
            let p = frame.point(for: coordinate)
            let de = p.east - east / count, dn = p.north - north / count
            return (de * de + dn * dn).squareRoot()
        }

        /// Root-mean-square distance of the fixes from their mean, metres.
        var spread: Double {
            let meanSquare = (east * east + north * north) / (count * count)
            return max(squares / count - meanSquare, 0).squareRoot()
        }
    }

    public let configuration: Configuration
    private var stay: Stay?
    /// The arrival of the current stay once reported (`distantPast` when not observed).
    private var arrival: Date?
    /// Fixes outside the current stay since its last fix inside.
    private var outside: [Location] = []
    private var lastDate: Date?

    /// - Throws: `GeoCoreError` when the configuration is invalid (``Configuration/validate()``).
    public init(configuration: Configuration = Configuration()) throws(GeoCoreError) {
        try configuration.validate()
        self.configuration = configuration
    }

    /// The visit in progress, once its arrival has been reported.
    public var currentVisit: Visit? {
        guard let arrival, let stay else { return nil }
        return visit(stay, arrival: arrival, departed: false)
    }

    /// Feeds one fix; returns what it decided, in order (usually nothing; a departure can be
    /// followed by the next arrival when fixes are sparse).
    public mutating func update(with fix: Location) -> [VisitEvent] {
        guard fix.coordinate.latitude.isFinite, fix.coordinate.longitude.isFinite,
              fix.timestamp.timeIntervalSince1970.isFinite else { return [] }
        if let accuracy = fix.horizontalAccuracy?.meters {
            guard accuracy >= 0, accuracy <= configuration.maximumAccuracy.meters else { return [] }
        }
        if let lastDate, fix.timestamp <= lastDate { return [] }
        let first = lastDate == nil
        lastDate = fix.timestamp
        var events: [VisitEvent] = []
        consider(fix, firstOfStream: first, into: &events)
        return events
    }

    private func visit(_ stay: Stay, arrival: Date, departed: Bool) -> Visit {
        Visit(coordinate: stay.centre, horizontalAccuracy: .meters(stay.spread), arrivalDate: arrival,
              departureDate: departed ? stay.lastDate : .distantFuture)
    }

    private mutating func consider(_ fix: Location, firstOfStream: Bool, into events: inout [VisitEvent]) {
        guard var current = stay else {
            stay = Stay(fix, firstOfStream: firstOfStream)
            return
        }
        let radius = configuration.radius.meters
        let distance = current.distance(to: fix.coordinate)
        if distance <= radius {
            outside.removeAll()
            current.add(fix, core: distance <= radius / 2, keep: arrival == nil)
            if arrival == nil {
                current.trimApproach(radius: radius / 2)
                let first = current.first
                if Duration.seconds(current.lastDate.timeIntervalSince(first.date)) >= configuration.minimumDuration {
                    let date = first.firstOfStream ? Date.distantPast : first.date
                    arrival = date
                    current.fixes = []
                    current.head = 0
                    events.append(.arrival(visit(current, arrival: date, departed: false)))
                }
            }
            stay = current
            return
        }
        outside.append(fix)
        guard outside.count >= configuration.departureFixes else { return }
        if let arrival { events.append(.departure(visit(current, arrival: arrival, departed: true))) }
        let next = outside
        stay = nil
        arrival = nil
        outside.removeAll()
        for f in next { consider(f, firstOfStream: false, into: &events) }
    }
}
