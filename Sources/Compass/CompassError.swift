public import GeoBase

/// Compass's error domain.
public enum CompassErrorDomain {}

/// The one error type of Compass (STYLE.md §3.7): a magnetic model's coefficient file that does
/// not parse (at its line), a date that does not parse, or a date or altitude outside the model.
public typealias CompassError = LocatedError<CompassErrorDomain>

extension ErrorCode where Domain == CompassError {
    /// A magnetic model coefficient file that does not follow the `.COF` layout.
    public static var invalidCoefficients: Self { Self("invalid coefficients") }
    /// A date outside the magnetic model's five years of validity.
    public static var dateOutsideModel: Self { Self("date outside the model") }
    /// A non-finite or absurd altitude (the magnetic model covers −1 km to 850 km).
    public static var altitudeOutsideModel: Self { Self("altitude outside the model") }
    /// A date that is neither `YYYY-MM-DD` (a real day) nor a decimal year.
    public static var invalidDate: Self { Self("invalid date") }
}
