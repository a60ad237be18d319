public import GeoCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
/// With the defaults (75 m, 5 minutes) a stay of minutes is found and a 90 s stop at a red light
/// is not. Fixes less precise than ``Configuration/maximumAccuracy``, with a negative accuracy
/// or not later than the last fix used are skipped. Time comes from the fixes only.
///
/// - Complexity: O(1) time and memory per fix (the outside fixes held are at most
///   `departureFixes`).
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

    /// The fixes of one stay, as running sums in a local frame at its first fix.
    private struct Stay: Sendable {
        let frame: LocalFrame
        let firstDate: Date
        var lastDate: Date
        let arrivalObserved: Bool
        var count = 0.0, east = 0.0, north = 0.0, squares = 0.0

        init(_ fix: Location, arrivalObserved: Bool) {
            frame = LocalFrame(origin: fix.coordinate)
            firstDate = fix.timestamp
            lastDate = fix.timestamp
            self.arrivalObserved = arrivalObserved
            add(fix)
        }

        mutating func add(_ fix: Location) {
            let p = frame.point(for: fix.coordinate)
            count += 1
            east += p.east
            north += p.north
            squares += p.east * p.east + p.north * p.north
            lastDate = fix.timestamp
        }

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

        func visit(departed: Bool) -> Visit {
            Visit(coordinate: centre, horizontalAccuracy: .meters(spread),
                  arrivalDate: arrivalObserved ? firstDate : .distantPast,
                  departureDate: departed ? lastDate : .distantFuture)
        }
    }

    public let configuration: Configuration
    private var stay: Stay?
    /// Whether the current stay has been reported as a visit.
    private var arrived = false
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
        guard arrived, let stay else { return nil }
        return stay.visit(departed: false)
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
        consider(fix, first: first, into: &events)
        return events
    }

    private mutating func consider(_ fix: Location, first: Bool, into events: inout [VisitEvent]) {
        guard var current = stay else {
            stay = Stay(fix, arrivalObserved: !first)
            return
        }
        if current.distance(to: fix.coordinate) <= configuration.radius.meters {
            outside.removeAll()
            current.add(fix)
            stay = current
            if !arrived, Duration.seconds(current.lastDate.timeIntervalSince(current.firstDate)) >= configuration.minimumDuration {
                arrived = true
                events.append(.arrival(current.visit(departed: false)))
            }
            return
        }
        outside.append(fix)
        guard outside.count >= configuration.departureFixes else { return }
        if arrived { events.append(.departure(current.visit(departed: true))) }
        let next = outside
        stay = nil
        arrived = false
        outside.removeAll()
        for f in next { consider(f, first: false, into: &events) }
    }
}
