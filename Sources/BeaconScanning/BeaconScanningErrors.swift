public import GeoBase
public import Monitoring

/// Beacon scanning's codes of ``MonitoringError`` (a beacon region's failures reach the same
/// delegate as the other regions').
extension ErrorCode where Domain == MonitoringError {
    /// Advertising data whose structures overrun it, or a beacon frame of the wrong length or
    /// with a value its specification forbids (the message names the byte offset).
    public static var malformedAdvertisement: Self { Self("malformed advertisement") }
    /// A line of a beacon replay file that is not a sighting.
    public static var malformedReplay: Self { Self("malformed replay line") }
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
