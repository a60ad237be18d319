/// A source of beacon sightings: ``BlueZScanner`` (a live adapter on Linux) or
/// ``BeaconReplayScanner`` (a recorded file).
///
/// Each call to ``sightings()`` starts an independent scan. Its stream ends when the scanner is
/// exhausted (a replay) and throws a ``MonitoringError`` when scanning fails or stops under it
/// (`.bluetoothUnavailable`, `.bluetoothDenied`, `.bluetoothLost`). Cancelling the consuming task,
/// or dropping the iterator, stops the scan.
public protocol BeaconScanner: Sendable {
    /// A human-readable name, e.g. `bluez:hci0`.
    var name: String { get }
    /// Starts a scan.
    func sightings() -> AsyncThrowingStream<BeaconSighting, any Error>
}

/// Which scanner a source URI names (`geo beacons --source`): `bluez:[ADAPTER]`, a live
/// ``BlueZScanner`` (its first adapter when none is named), or `replay:FILE`, a recorded
/// ``BeaconReplayScanner``.
public enum BeaconSourceURI: Sendable, Hashable {
    case bluez(adapter: String)
    case replay(path: String)

    /// The source `text` names; nil for text of neither form, or `replay:` without a file.
    public init?(_ text: String) {
        if text.hasPrefix("bluez:") {
            self = .bluez(adapter: String(text.dropFirst("bluez:".count)))
        } else if text.hasPrefix("replay:"), text.count > "replay:".count {
            self = .replay(path: String(text.dropFirst("replay:".count)))
        } else {
            return nil
        }
    }
}
