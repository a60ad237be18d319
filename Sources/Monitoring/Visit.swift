public import GeoCore
public import Platform

/// A stay at one place, Core Location's `CLVisit`: where, how precisely, and from when to when.
///
/// The dates follow `CLVisit`'s conventions: an arrival that was not observed (the stay began
/// before the first fix) is `Date.distantPast`, and a visit still in progress has the departure
/// date `Date.distantFuture`.
public struct Visit: Hashable, Sendable, Codable {
    /// The centre of the place: the mean of the fixes of the stay.
    public var coordinate: Coordinate
    /// How far the fixes of the stay scatter about ``coordinate`` (root mean square, metres):
    /// the size of the place and the noise of the fixes together.
    public var horizontalAccuracy: Distance
    /// The time of the first fix at the place, or `Date.distantPast` when the stay had begun
    /// before the first fix.
    public var arrivalDate: Date
    /// The time of the last fix at the place once the device has left it, or
    /// `Date.distantFuture` while the visit lasts.
    public var departureDate: Date

    public init(coordinate: Coordinate, horizontalAccuracy: Distance, arrivalDate: Date, departureDate: Date = .distantFuture) {
        self.coordinate = coordinate
        self.horizontalAccuracy = horizontalAccuracy
        self.arrivalDate = arrivalDate
        self.departureDate = departureDate
    }

    /// Whether the device is still at the place (`departureDate` is `distantFuture`).
    public var isInProgress: Bool { departureDate == .distantFuture }

    /// How long the stay lasted, or has lasted until `now` while it is in progress; nil when
    /// the arrival was not observed.
    public func duration(until now: Date) -> Duration? {
        guard arrivalDate != .distantPast else { return nil }
        let end = isInProgress ? now : departureDate
        return .seconds(end.timeIntervalSince(arrivalDate))
    }
}

/// What the ``VisitDetector`` reports: an arrival as soon as a stay is long enough, then the
/// departure of the same visit once the device has left.
public enum VisitEvent: Hashable, Sendable {
    /// The device has stayed long enough: the visit so far, `departureDate` `distantFuture`.
    case arrival(Visit)
    /// The device left: the finished visit.
    case departure(Visit)

    /// The visit the event is about.
    public var visit: Visit {
        switch self {
        case .arrival(let v), .departure(let v): v
        }
    }
}
