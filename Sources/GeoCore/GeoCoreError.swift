/// The one error type of GeoCore (STYLE.md §3.7): a growable `Code`, a human message.
public struct GeoCoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: a growable code (`ErrorCode`, STYLE.md §3.7).
    public typealias Code = ErrorCode<GeoCoreError>

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

extension ErrorCode where Domain == GeoCoreError {
    /// A latitude outside [-90, 90] degrees.
    public static var invalidLatitude: Self { Self("invalid latitude") }
    /// A longitude that is infinite.
    public static var invalidLongitude: Self { Self("invalid longitude") }
    /// A NaN where a number is required.
    public static var notANumber: Self { Self("not a number") }
    /// GeoJSON that does not follow RFC 7946.
    public static var invalidGeoJSON: Self { Self("invalid GeoJSON") }
    /// Any other argument outside its domain (zoom level, tile index, …).
    public static var invalidArgument: Self { Self("invalid argument") }
}
