public import GeoBase
import GeoCore

/// The one error type of TrackFiltering (STYLE.md §3.7).
public typealias TrackFilteringError = CodedError<TrackFilteringErrorDomain>

/// Names TrackFilteringError's codes apart from other modules' (`CodedError`); it has no values.
public enum TrackFilteringErrorDomain {}

extension ErrorCode where Domain == TrackFilteringError {
    /// A parameter outside its domain (negative duration, NaN threshold, …).
    public static var invalidParameter: Self { Self("invalid parameter") }
    /// A preset name that is not one of `TrackFilterConfiguration.presetNames`.
    public static var unknownPreset: Self { Self("unknown preset") }
}
