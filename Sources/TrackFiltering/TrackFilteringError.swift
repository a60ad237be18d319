public import GeoCore

/// The one error type of TrackFiltering (STYLE.md §3.7).
public struct TrackFilteringError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: a growable code (`ErrorCode`, STYLE.md §3.7).
    public typealias Code = ErrorCode<TrackFilteringError>

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

extension ErrorCode where Domain == TrackFilteringError {
    /// A parameter outside its domain (negative duration, NaN threshold, …).
    public static var invalidParameter: Self { Self("invalid parameter") }
    /// A preset name that is not one of `TrackFilterConfiguration.presetNames`.
    public static var unknownPreset: Self { Self("unknown preset") }
}
