import GeoCore
public import GeoBase

/// The size of the view a camera looks through, in screen pixels (points on Apple platforms).
public struct ViewSize: Hashable, Sendable, CustomStringConvertible {
    /// Pixels across, > 0.
    public let width: Double
    /// Pixels down, > 0.
    public let height: Double

    /// Largest side accepted, pixels: far beyond any screen, small enough that every product of
    /// sizes and world coordinates stays exact to well under a pixel.
    public static let maximumSide = 65_536.0

    /// Creates a view size.
    /// - Throws: `MapCameraError.invalidViewSize` unless both sides are finite and in (0, 65 536].
    public init(width: Double, height: Double) throws(MapCameraError) {
        guard width > 0, height > 0, width <= Self.maximumSide, height <= Self.maximumSide else {
            throw MapCameraError(.invalidViewSize, "view size \(width)×\(height) must have both sides > 0 and ≤ \(Int(Self.maximumSide)) px")
        }
        self.width = width
        self.height = height
    }

    /// Parses `WIDTHxHEIGHT` in pixels (`1280x720`; the `x` in either case).
    /// - Throws: `MapCameraError.invalidViewSize` for other text or sides out of range.
    public init(parsing text: String) throws(MapCameraError) {
        guard let (width, height) = Self.sides(of: text, as: Double.self) else {
            throw MapCameraError(.invalidViewSize, "expected WIDTHxHEIGHT in pixels, got '\(text)'")
        }
        try self.init(width: width, height: height)
    }

    /// The two sides of `WIDTHxHEIGHT` text (the `x` in either case) as `Side`; nil for other text.
    static func sides<Side: LosslessStringConvertible>(of text: String, as _: Side.Type) -> (Side, Side)? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Side(String(parts[0])), let height = Side(String(parts[1])) else { return nil }
        return (width, height)
    }

    /// The centre of the view, pixels from the top-left corner.
    public var center: ScreenPoint { ScreenPoint(x: width / 2, y: height / 2) }

    public var description: String { "\(width)×\(height)" }
}

/// A point on the screen in pixels: x to the right, y down, from the view's top-left corner.
public struct ScreenPoint: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// Euclidean distance to another point, pixels.
    public func distance(to other: ScreenPoint) -> Double { ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot() }

    public var description: String { "(\(x), \(y))" }
}
