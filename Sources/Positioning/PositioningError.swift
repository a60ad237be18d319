import SystemIO

/// The one error type of Positioning (STYLE.md §3.7).
public struct PositioningError: Error, Sendable, CustomStringConvertible {
    /// What went wrong; a struct over a private enum so new cases do not break clients.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case locationUnknown, denied, sourceUnavailable, invalidConfiguration, sessionInvalid, io
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// No position can be had right now; the manager keeps trying
        /// (Core Location's `kCLErrorLocationUnknown`).
        public static let locationUnknown = Code(.locationUnknown)
        /// Access to the positioning device was refused (a device node without permission);
        /// the manager stops (Core Location's `kCLErrorDenied`).
        public static let denied = Code(.denied)
        /// No source can be reached: no gpsd on localhost and no NMEA device configured.
        public static let sourceUnavailable = Code(.sourceUnavailable)
        /// A source URI or parameter is malformed.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// A background activity session was invalidated or its state is unreadable.
        public static let sessionInvalid = Code(.sessionInvalid)
        /// Reading or writing a file, socket or device failed.
        public static let io = Code(.io)

        public var description: String {
            switch value {
            case .locationUnknown: "location unknown"
            case .denied: "denied"
            case .sourceUnavailable: "source unavailable"
            case .invalidConfiguration: "invalid configuration"
            case .sessionInvalid: "session invalid"
            case .io: "I/O error"
            }
        }
    }

    public var code: Code
    public var message: String
    /// The error that caused this one, if any.
    public var underlying: (any Error)?

    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        underlying.map { "\(code): \(message) (\($0))" } ?? "\(code): \(message)"
    }
}

extension PositioningError {
    /// A source's endpoint that would not open: refused access is `.denied` (the manager then
    /// stops), an unsupported parameter `.invalidConfiguration`, anything else (a missing
    /// device, nothing listening) `.sourceUnavailable`.
    init(opening error: SystemIOError) {
        let code: Code = switch error.code {
        case .permissionDenied: .denied
        case .invalidArgument: .invalidConfiguration
        default: .sourceUnavailable
        }
        self.init(code, error.description, underlying: error)
    }
}
