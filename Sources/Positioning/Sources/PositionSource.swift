public import GeoCore
public import Compass

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
    /// A heading from the receiver's heading sensor (gpsd's `ATT`, NMEA `HDT`/`THS`); the
    /// manager delivers it as `updateHeading(_:)` does, while heading updates run.
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
    /// Whether the source replays recorded or simulated fixes as fast as it can
    /// (`ReplayPacing.asFastAsPossible`). Its silences are then the CPU's, not the receiver's,
    /// so `LostPositionWatchdog` does not time them; such a source reports `.lost` itself where
    /// its data says so (a simulation's `positionLost` fault). False unless a source says so.
    var isReplayedAsFastAsPossible: Bool { get }
    /// Starts a run of the source.
    func events() -> AsyncThrowingStream<PositionSourceEvent, any Error>
}

extension PositionSource {
    public var isReplayedAsFastAsPossible: Bool { false }
}

/// A source that can hand over several events at once: the batch delivery path.
///
/// A run of `eventBatches()` yields arrays of events; consumers treat every element as one event,
/// in order, exactly as if `events()` had delivered them one by one. Batching removes the
/// per-event trip through an `AsyncThrowingStream` (a lock, a buffer entry and usually a task
/// switch), which is most of the cost of a fast replay. `PositioningManager` reads a batch
/// source on this path; `events()` keeps working for every other consumer.
///
/// The cancellation contract of `PositionSource` holds for batch runs too. A source yields a
/// batch before it waits (for a paced delay, the next read, a reconnection), so batching never
/// delays an event.
public protocol BatchPositionSource: PositionSource {
    /// Starts a run of the source that delivers events in batches (never empty).
    func eventBatches() -> AsyncThrowingStream<[PositionSourceEvent], any Error>
}

extension BatchPositionSource {
    /// The one-event path over `eventBatches()`: each batch's events in order.
    public func events() -> AsyncThrowingStream<PositionSourceEvent, any Error> {
        let batches = eventBatches()
        let (stream, output) = AsyncThrowingStream.makeStream(of: PositionSourceEvent.self, bufferingPolicy: .countingUnbounded)
        let forward = Task {
            do {
                for try await batch in batches {
                    for event in batch { await output.yieldPaced(event) }
                }
                output.finish()
            } catch {
                output.finish(throwing: error)
            }
        }
        output.onTermination = { _ in forward.cancel() }
        return stream
    }
}
