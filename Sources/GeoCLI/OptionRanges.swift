import ArgumentParser
import GeoCore

/// The valid ranges of the `geo` options that several commands share and no one library
/// parameter bounds, each shown in its option's help and checked in `validate()`. A library
/// parameter's range lives with it (`VisitDetector.Configuration.radii`, `PositionSourceURI.Limits`).
enum OptionRanges {
    /// `geo track --for`: above 0 through 10⁹ s (about 31 years); a sleep that long still
    /// fits the clock's nanoseconds.
    static let trackDuration = ValidRange(above: 0, through: 1e9, unit: "s")
    /// A count of fixes or updates (`--count`): 1 through 10¹⁵.
    static let count = ValidRange(1...1e15, unit: "")
}

extension ValidRange {
    /// Throws a `ValidationError` naming `option` and the range when `value` is outside.
    func check(_ value: Double?, option: String) throws {
        guard let value, !contains(value) else { return }
        throw ValidationError("\(option) must be \(self), got \(value)")
    }

    /// Throws a `ValidationError` naming `option` and the range when `value` is outside.
    func check(_ value: Int?, option: String) throws {
        guard let value, !contains(value) else { return }
        throw ValidationError("\(option) must be \(self), got \(value)")
    }
}
