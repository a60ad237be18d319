public import GeoBase
import GeoCore
import SystemIO

/// The one error type of Positioning (STYLE.md §3.7).
public struct PositioningError: Error, Sendable, CustomStringConvertible {
    /// What went wrong: a growable code (`ErrorCode`, STYLE.md §3.7).
    public typealias Code = ErrorCode<PositioningError>

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

extension ErrorCode where Domain == PositioningError {
    /// No position can be had right now; the manager keeps trying
    /// (Core Location's `kCLErrorLocationUnknown`).
    public static var locationUnknown: Self { Self("location unknown") }
    /// Access to the positioning device was refused (a device node without permission);
    /// the manager reports `.denied` authorization and waits for access (Core Location's
    /// `kCLErrorDenied`).
    public static var denied: Self { Self("denied") }
    /// No source can be reached: no gpsd on localhost and no NMEA device configured.
    public static var sourceUnavailable: Self { Self("source unavailable") }
    /// A source URI or parameter is malformed.
    public static var invalidConfiguration: Self { Self("invalid configuration") }
    /// A background activity session was invalidated or its state is unreadable.
    public static var sessionInvalid: Self { Self("session invalid") }
    /// The heading could not be determined: the sensor marked it not valid (NMEA THS mode V),
    /// the magnetometer is in alarm (strong interference nearby), or the horizontal field is
    /// too weak for a compass there (Core Location's `kCLErrorHeadingFailure`).
    public static var headingFailure: Self { Self("heading failure") }
    /// A value given to the manager is out of its range or not a number (a NaN heading, a
    /// negative heading accuracy).
    public static var invalidArgument: Self { Self("invalid argument") }
    /// Reading or writing a file, socket or device failed.
    public static var io: Self { Self("I/O error") }
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
