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
