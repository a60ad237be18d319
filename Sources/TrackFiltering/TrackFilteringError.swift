/// The one error type of TrackFiltering (STYLE.md §3.7).
public struct TrackFilteringError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; a struct over a private enum so new cases do not break clients.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable { case invalidParameter, unknownPreset }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A parameter outside its domain (negative duration, NaN threshold, …).
        public static let invalidParameter = Code(.invalidParameter)
        /// A preset name that is not one of `TrackFilterConfiguration.presetNames`.
        public static let unknownPreset = Code(.unknownPreset)

        public var description: String {
            switch value {
            case .invalidParameter: "invalid parameter"
            case .unknownPreset: "unknown preset"
            }
        }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
