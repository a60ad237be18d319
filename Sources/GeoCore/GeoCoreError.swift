public import GeoBase
/// The one error type of GeoCore (STYLE.md §3.7): a growable `Code`, a human message.
public typealias GeoCoreError = CodedError<GeoCoreErrorDomain>

/// Names GeoCoreError's codes apart from other modules' (`CodedError`); it has no values.
public enum GeoCoreErrorDomain {}

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
