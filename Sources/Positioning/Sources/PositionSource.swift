public import GeoCore
public import Monitoring

/// Whether the app may read positions from a source (Core Location's authorization status).
public enum AuthorizationStatus: Sendable, Hashable {
    /// Not yet asked or not yet known.
    case notDetermined
    /// The source can be read.
    case authorized
    /// Reading was refused, e.g. a serial device node without read permission.
    case denied
}

/// What a position source reports.
public enum PositionSourceEvent: Sendable, Hashable {
    /// A new fix.
    case location(Location)
    /// The source is running but has no position (receiver lost its fix, gpsd went away).
    case lost
    /// The source's authorization changed.
    case authorizationChanged(AuthorizationStatus)
    /// A heading from the receiver's heading sensor (gpsd's `ATT`); the manager delivers it as
    /// `updateHeading(_:)` does.
    case heading(Heading)
}

/// A provider of fixes: gpsd, an NMEA stream, a replay of recorded fixes, a route simulation, or an app's own
/// feed (HERE's `NMAPositionDataSource`, DESIGN.md §1).
///
/// Each call to `events()` starts an independent run of the source. The stream ends when the
/// source is exhausted (a replayed file) and throws a `PositioningError` when it fails:
/// `.locationUnknown` for a transient failure the manager retries, `.denied` for a permanent one.
/// Cancelling the consuming task, or dropping the iterator, stops the source and releases its
/// file descriptors, sockets and tasks — every source honours that contract, and
/// `PositionSourceContractTests` runs the same checks against each (gpsd through a real
/// daemon, NMEA from a file and over TCP).
public protocol PositionSource: Sendable {
    /// A human-readable name, e.g. `gpsd://127.0.0.1:2947`.
    var name: String { get }
    /// Starts a run of the source.
    func events() -> AsyncThrowingStream<PositionSourceEvent, any Error>
}
