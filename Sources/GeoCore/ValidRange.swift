/// The documented range of valid values for a number that comes from a user or a file (a
/// command-line option, a source URI parameter, a file field), so the check and the text that
/// documents it are one thing: `ValidRange(above: 0, through: 10_000, unit: "m/s")` accepts
/// 13.9, rejects 0, -1, 1e20 and NaN, and describes itself as `> 0 and ≤ 10000 m/s`.
///
/// Bounds are chosen so that everything downstream (a `Duration`, an integer conversion, a
/// sleep in nanoseconds) holds any value inside: a value that passes cannot make arithmetic trap.
public struct ValidRange: Sendable, Hashable, CustomStringConvertible {
    public let lowerBound: Double
    public let upperBound: Double
    /// Whether `lowerBound` itself is valid (false: only values above it).
    public let includesLowerBound: Bool
    /// The unit the values are in, as printed after the range ("m/s", "s"; empty for none).
    public let unit: String

    /// Values from `range.lowerBound` through `range.upperBound`, both included.
    public init(_ range: ClosedRange<Double>, unit: String) {
        lowerBound = range.lowerBound
        upperBound = range.upperBound
        includesLowerBound = true
        self.unit = unit
    }

    /// Values above `lower` (excluded) through `upper` (included).
    public init(above lower: Double, through upper: Double, unit: String) {
        lowerBound = lower
        upperBound = upper
        includesLowerBound = false
        self.unit = unit
    }

    /// Whether `value` is inside; NaN never is.
    @inlinable
    public func contains(_ value: Double) -> Bool {
        (includesLowerBound ? value >= lowerBound : value > lowerBound) && value <= upperBound
    }

    /// Whether the integer `value` is inside.
    public func contains(_ value: Int) -> Bool { contains(Double(value)) }

    /// `> 0 and ≤ 10000 m/s` or `0.001…86400 s`.
    public var description: String {
        let suffix = unit.isEmpty ? "" : " " + unit
        return includesLowerBound
            ? "\(Self.text(lowerBound))…\(Self.text(upperBound))\(suffix)"
            : "> \(Self.text(lowerBound)) and ≤ \(Self.text(upperBound))\(suffix)"
    }

    /// A bound as people write it: `10000`, not `10000.0`; `0.001`.
    private static func text(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 9e15 ? String(Int64(x)) : "\(x)"
    }
}
