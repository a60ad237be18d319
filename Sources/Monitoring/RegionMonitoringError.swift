public import GeoBase
import GeoCore

/// The one error type of Monitoring (STYLE.md §3.7) — regions, stores, and beacons and scanners
/// (BeaconScanning adds their codes): a growable code, a message naming the value at fault, and
/// where it is (a file's line, a JSON path, a condition's identifier, a Bluetooth adapter).
public struct MonitoringError: Error, Sendable, Hashable, CustomStringConvertible {
    public typealias Code = ErrorCode<MonitoringError>

    public var code: Code
    public var message: String
    /// Where the problem is: `monaco.poly:12`, `$.features[2]`, `identifier 'home'`; nil when
    /// the value has no place of its own.
    public var location: String?

    public init(_ code: Code, _ message: String, at location: String? = nil) {
        self.code = code
        self.message = message
        self.location = location
    }

    public var description: String { location.map { "\($0): \(code): \(message)" } ?? "\(code): \(message)" }
}

extension ErrorCode where Domain == MonitoringError {
    /// A ring that is open, too short, self-intersecting, of zero area, or a hole outside its shell.
    public static var invalidPolygon: Self { Self("invalid polygon") }
    /// A circle whose radius is zero, negative, NaN or infinite, or whose centre is not a coordinate.
    public static var invalidCircle: Self { Self("invalid circle") }
    /// A beacon identity that cannot match anything (a minor without a major).
    public static var invalidBeaconIdentity: Self { Self("invalid beacon identity") }
    /// A regions file that is neither GeoJSON nor an Osmosis `.poly` file, or holds no region.
    public static var invalidRegionsFile: Self { Self("invalid regions file") }
    /// A monitor store line that cannot be read back; the other lines are kept.
    public static var corruptedStore: Self { Self("corrupted store") }
    /// An identifier already monitored, empty, or unknown to the monitor.
    public static var invalidIdentifier: Self { Self("invalid identifier") }
    /// Reading or writing the store failed.
    public static var io: Self { Self("I/O error") }
}
