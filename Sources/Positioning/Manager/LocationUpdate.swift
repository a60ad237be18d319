public import Foundation
public import GeoCore
import TrackFiltering

/// One element of the live-update sequence (Core Location's `CLLocationUpdate`).
public struct LocationUpdate: Sendable, Hashable {
    /// The fix, or nil when the update only reports a state (lost position).
    public var location: Location?
    /// True on the one update that announces a stop; delivery then pauses until movement
    /// resumes, and the first update after that has `isStationary == false`.
    public var isStationary: Bool
    /// True when the source has no position (receiver lost its fix, daemon gone).
    public var locationUnavailable: Bool

    public init(location: Location?, isStationary: Bool = false, locationUnavailable: Bool = false) {
        self.location = location
        self.isStationary = isStationary
        self.locationUnavailable = locationUnavailable
    }

    /// Live updates from `source`: iterate with `for try await`; leaving the loop stops the
    /// source and releases it.
    ///
    /// Fixes are cleaned by `configuration.trackFilter` (rejected ones are not delivered; the
    /// stale-fix rule judges each by its receive time on `now`); stationary detection follows
    /// `configuration` (see `StationaryDetector`) on every fix the source delivered, filtered
    /// or not (`LiveUpdateGate`): one update with `isStationary == true`, then silence, then
    /// updates again once the device moves. A silent
    /// source produces one `locationUnavailable` update after `configuration.lostTimeout`.
    /// - Parameters:
    ///   - configuration: the preset, `.default` unless said otherwise.
    ///   - source: where fixes come from.
    ///   - clock: the clock for the lost-position timeout (a `ManualClock` in tests).
    ///   - now: the wall clock fixes are stamped with on arrival (receive time).
    public static func liveUpdates<C: Clock>(_ configuration: LiveConfiguration = .default, source: any PositionSource,
                                             clock: C, now: @escaping @Sendable () -> Date = { Date() }) -> Updates
        where C.Duration == Duration {
        Updates(configuration: configuration, source: LostPositionWatchdog(source, timeout: configuration.lostTimeout, clock: clock),
                now: now)
    }

    /// Live updates from `source`, timed by the continuous clock.
    public static func liveUpdates(_ configuration: LiveConfiguration = .default, source: any PositionSource) -> Updates {
        liveUpdates(configuration, source: source, clock: ContinuousClock())
    }

    /// Live updates from the device (Core Location's `CLLocationUpdate.liveUpdates()`, which
    /// takes no source): gpsd on localhost:2947, or the host and port of `LOCATIONKIT_GPSD`,
    /// else the NMEA device of `LOCATIONKIT_NMEA_DEVICE` (`DeviceSource`), looked up when the
    /// iteration starts. Where there is neither, the first `next()` throws
    /// `PositioningError.sourceUnavailable` (Core Location has no such case: its device is
    /// always there). Timed by the continuous clock.
    public static func liveUpdates(_ configuration: LiveConfiguration = .default) -> Updates {
        liveUpdates(configuration, environment: ProcessInfo.processInfo.environment)
    }

    /// `liveUpdates(_:)` on the device source `environment` names.
    static func liveUpdates(_ configuration: LiveConfiguration = .default, environment: [String: String]) -> Updates {
        liveUpdates(configuration, source: DeviceSourceOnDemand(environment: environment))
    }

    /// The named sequence of live updates (STYLE.md §3.8: never `any AsyncSequence` in public API).
    public struct Updates: AsyncSequence, Sendable {
        public typealias Element = LocationUpdate
        let configuration: LiveConfiguration
        let source: any PositionSource
        let now: @Sendable () -> Date

        public func makeAsyncIterator() -> AsyncIterator {
            let (stream, output) = AsyncThrowingStream.makeStream(of: LocationUpdate.self, bufferingPolicy: .bufferingNewest(256))
            let configuration = self.configuration, source = self.source, now = self.now
            let arrival = LiveUpdateGate.arrivalTime(from: source, now: now)
            let run = Task {
                var gate = LiveUpdateGate(configuration)
                do {
                    for try await event in source.events() {
                        switch event {
                        case .location(let raw):
                            let outcome = gate.process(raw, receivedAt: arrival())
                            if outcome.transition == .becameStationary {
                                output.yield(LocationUpdate(location: LiveUpdateGate.pauseLocation(outcome, raw: raw), isStationary: true))
                            } else if let location = outcome.delivered {
                                output.yield(LocationUpdate(location: location))
                            }
                        case .lost:
                            output.yield(LocationUpdate(location: nil, locationUnavailable: true))
                        case .authorizationChanged(.denied):
                            throw PositioningError(.denied, "\(source.name): access to the positioning source was denied")
                        case .authorizationChanged, .heading:
                            break
                        }
                    }
                    output.finish()
                } catch {
                    output.finish(throwing: error)
                }
            }
            output.onTermination = { _ in run.cancel() }
            return AsyncIterator(base: stream.makeAsyncIterator())
        }

        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<LocationUpdate, any Error>.AsyncIterator
            public mutating func next() async throws -> LocationUpdate? { try await base.next() }
        }
    }
}
