public import GeoBase
import GeoCore

/// The one error type of Monitoring (STYLE.md §3.7) — regions, stores, beacons, scanners and the
/// magnetic model: a growable code, a message naming the value at fault, and where it is (a
/// file's line, a JSON path, a condition's identifier, a Bluetooth adapter).
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
    /// Advertising data whose structures overrun it, or a beacon frame of the wrong length or
    /// with a value its specification forbids (the message names the byte offset).
    public static var malformedAdvertisement: Self { Self("malformed advertisement") }
    /// A line of a beacon replay file that is not a sighting.
    public static var malformedReplay: Self { Self("malformed replay line") }
    /// A magnetic model coefficient file that does not follow the `.COF` layout.
    public static var invalidCoefficients: Self { Self("invalid coefficients") }
    /// A date outside the magnetic model's five years of validity.
    public static var dateOutsideModel: Self { Self("date outside the model") }
    /// A non-finite or absurd altitude (the magnetic model covers −1 km to 850 km).
    public static var altitudeOutsideModel: Self { Self("altitude outside the model") }
    /// Bluetooth scanning cannot start: no system bus, BlueZ not running, no such adapter, or
    /// the adapter powered off.
    public static var bluetoothUnavailable: Self { Self("Bluetooth unavailable") }
    /// The bus or BlueZ refused access (D-Bus `AccessDenied`, BlueZ `NotAuthorized` /
    /// `NotPermitted`): Bluetooth's authorization is denied.
    public static var bluetoothDenied: Self { Self("Bluetooth denied") }
    /// Scanning stopped under the scanner: the adapter was removed or powered off, or BlueZ or
    /// the bus went away.
    public static var bluetoothLost: Self { Self("Bluetooth lost") }
}
