/// The one error type of GeoCore (STYLE.md §3.7): a growable `Code`, a human message.
public struct GeoCoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong; a struct over a private enum so new cases do not break clients.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case invalidLatitude, invalidLongitude, notANumber, invalidGeoJSON, invalidArgument
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A latitude outside [-90, 90] degrees.
        public static let invalidLatitude = Code(.invalidLatitude)
        /// A longitude that is infinite.
        public static let invalidLongitude = Code(.invalidLongitude)
        /// A NaN where a number is required.
        public static let notANumber = Code(.notANumber)
        /// GeoJSON that does not follow RFC 7946.
        public static let invalidGeoJSON = Code(.invalidGeoJSON)
        /// Any other argument outside its domain (zoom level, tile index, …).
        public static let invalidArgument = Code(.invalidArgument)

        public var description: String {
            switch value {
            case .invalidLatitude: "invalid latitude"
            case .invalidLongitude: "invalid longitude"
            case .notANumber: "not a number"
            case .invalidGeoJSON: "invalid GeoJSON"
            case .invalidArgument: "invalid argument"
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
