/// A length in metres (STYLE.md §3.3: units live in types).
@frozen
public struct Distance: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The length in metres.
    public var meters: Double

    @inlinable public init(meters: Double) { self.meters = meters }
    @inlinable public static func meters(_ value: Double) -> Distance { Distance(meters: value) }
    @inlinable public static func kilometers(_ value: Double) -> Distance { Distance(meters: value * 1000) }
    /// The length in kilometres.
    @inlinable public var kilometers: Double { meters / 1000 }
    public static let zero = Distance(meters: 0)

    @inlinable public static func < (a: Distance, b: Distance) -> Bool { a.meters < b.meters }
    @inlinable public static func + (a: Distance, b: Distance) -> Distance { Distance(meters: a.meters + b.meters) }
    @inlinable public static func - (a: Distance, b: Distance) -> Distance { Distance(meters: a.meters - b.meters) }
    @inlinable public static func * (a: Distance, k: Double) -> Distance { Distance(meters: a.meters * k) }
    @inlinable public static func += (a: inout Distance, b: Distance) { a.meters += b.meters }

    public init(from decoder: any Decoder) throws { meters = try Double(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try meters.encode(to: encoder) }
    public var description: String { "\(meters) m" }
}

/// A direction in degrees clockwise from true north, normalised to [0, 360).
@frozen
public struct Bearing: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The direction in degrees clockwise from true north, in [0, 360).
    public let degrees: Double

    /// Creates a bearing; any finite angle is wrapped into [0, 360).
    @inlinable public init(degrees: Double) {
        var d = degrees.truncatingRemainder(dividingBy: 360)
        if d < 0 { d += 360 }
        if d >= 360 { d = 0 } // -1e-17 + 360 rounds to 360
        self.degrees = d
    }
    @inlinable public static func degrees(_ value: Double) -> Bearing { Bearing(degrees: value) }
    /// The direction in radians clockwise from true north, in [0, 2π).
    @inlinable public var radians: Double { degrees * .pi / 180 }

    /// The signed smallest turn from `self` to `other`, in degrees in (-180, 180]; positive is clockwise.
    @inlinable public func turn(to other: Bearing) -> Double {
        var d = other.degrees - degrees
        if d > 180 { d -= 360 } else if d <= -180 { d += 360 }
        return d
    }

    public init(from decoder: any Decoder) throws { self.init(degrees: try Double(from: decoder)) }
    public func encode(to encoder: any Encoder) throws { try degrees.encode(to: encoder) }
    public var description: String { "\(degrees)°" }
}

/// An angle in degrees, signed and not wrapped: a magnitude such as a one-sigma angular
/// uncertainty (`Location.courseAccuracy`).
///
/// Not a ``Bearing``: a bearing is a direction, wrapped into [0, 360), and wrapping a spread
/// would be wrong (a 370° uncertainty is not a 10° one; a negative one marks "invalid").
@frozen
public struct Angle: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The angle in degrees.
    public var degrees: Double

    @inlinable public init(degrees: Double) { self.degrees = degrees }
    @inlinable public static func degrees(_ value: Double) -> Angle { Angle(degrees: value) }
    @inlinable public static func radians(_ value: Double) -> Angle { Angle(degrees: value * 180 / .pi) }
    /// The angle in radians.
    @inlinable public var radians: Double { degrees * .pi / 180 }
    public static let zero = Angle(degrees: 0)

    @inlinable public static func < (a: Angle, b: Angle) -> Bool { a.degrees < b.degrees }

    public init(from decoder: any Decoder) throws { degrees = try Double(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try degrees.encode(to: encoder) }
    public var description: String { "\(degrees)°" }
}

/// A speed in metres per second.
@frozen
public struct Speed: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The speed in metres per second.
    public var metersPerSecond: Double

    @inlinable public init(metersPerSecond: Double) { self.metersPerSecond = metersPerSecond }
    @inlinable public static func metersPerSecond(_ v: Double) -> Speed { Speed(metersPerSecond: v) }
    @inlinable public static func kilometersPerHour(_ v: Double) -> Speed { Speed(metersPerSecond: v / 3.6) }
    /// International knots (1852 m per hour), as NMEA reports them.
    @inlinable public static func knots(_ v: Double) -> Speed { Speed(metersPerSecond: v * 1852 / 3600) }
    @inlinable public var kilometersPerHour: Double { metersPerSecond * 3.6 }
    @inlinable public var knots: Double { metersPerSecond * 3600 / 1852 }
    public static let zero = Speed(metersPerSecond: 0)

    @inlinable public static func < (a: Speed, b: Speed) -> Bool { a.metersPerSecond < b.metersPerSecond }

    public init(from decoder: any Decoder) throws { metersPerSecond = try Double(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try metersPerSecond.encode(to: encoder) }
    public var description: String { "\(metersPerSecond) m/s" }
}

extension Duration {
    /// The duration in seconds, as a `Double` (the attosecond count rounded to the nearest
    /// double): `Duration.seconds(1.5).seconds == 1.5`.
    @inlinable public var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) * 1e-18
    }

    /// The duration in whole milliseconds, the fraction truncated toward zero, held at
    /// `Int64`'s bounds beyond them: for interfaces that count milliseconds (times in SQLite,
    /// PostgreSQL and D-Bus time-outs).
    @inlinable public var milliseconds: Int64 {
        let (s, atto) = components
        let (whole, overflow) = s.multipliedReportingOverflow(by: 1000)
        let (total, carry) = whole.addingReportingOverflow(atto / 1_000_000_000_000_000)
        return overflow || carry ? (s < 0 ? .min : .max) : total
    }

    /// A duration of `seconds`, or nil when `seconds` is NaN, infinite or beyond the ±2⁶³ s
    /// that `Duration` holds (where `Duration.seconds(_:)` traps): for values from users or files.
    @inlinable public init?(seconds: Double) {
        guard seconds.isFinite, abs(seconds) < 9.2e18 else { return nil }
        self = .seconds(seconds)
    }
}
