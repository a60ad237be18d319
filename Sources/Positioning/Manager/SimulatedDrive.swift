public import GeoCore
import MapMatching
public import RoadNetwork
public import TrackFiltering

/// A simulated drive through a `PositioningManager` with live map matching, run to its end:
/// a `RouteSimulationSource`'s fixes through the manager's fix pipeline for a preset and
/// through `LiveMapMatcher` on a car graph (DESIGN.md §3: source → PositioningManager → fix
/// pipeline → online matching → events). What `geo demo` narrates.
public struct SimulatedDrive: Sendable {
    /// One thing the manager published, in order.
    public enum Step: Sendable, Hashable {
        /// A delivered fix with its positions (raw, filtered, matched) under live matching.
        case update(MapMatchedUpdate)
        /// Updates paused: the device counted as stationary.
        case paused
        /// The position counted as lost.
        case lost
    }

    /// The simulated route (the source's polyline).
    public var route: [Coordinate]
    /// What the manager published, in order, up to its stop.
    public var steps: [Step]
    /// What the preset's track filter received, accepted and dropped.
    public var filterReport: FilterReport
    /// The manager's average speed at the end, nil before enough fixes.
    public var averageSpeed: Speed?

    /// The delivered updates, in order.
    public var updates: [MapMatchedUpdate] {
        steps.compactMap { if case .update(let u) = $0 { u } else { nil } }
    }

    /// The distance from `coordinate` to the nearest segment of the route (local projection,
    /// `Coordinate.projected(onSegmentFrom:to:)`); infinite for a route of one point.
    /// - Complexity: O(route points).
    public func distanceFromRoute(_ coordinate: Coordinate) -> Distance {
        .meters(zip(route, route.dropFirst()).map { coordinate.projected(onSegmentFrom: $0, to: $1).distance.meters }.min() ?? .infinity)
    }

    /// How many updates have a matched position closer than `tolerance` to the driven route.
    /// - Complexity: O(updates × route points).
    public func updatesMatchedOntoRoute(within tolerance: Distance) -> Int {
        updates.count { update in update.mapMatchedPosition.map { distanceFromRoute($0.coordinate) < tolerance } ?? false }
    }

    /// Runs `source` through a new manager with `configuration` and car matching on `graph`
    /// switched on, until the source ends.
    ///
    /// An `.updated` event is recorded with the last `.mapMatched` update before it (an
    /// `.updated` before any is skipped); `.paused` and `.lost` are recorded as they come.
    /// - Parameters:
    ///   - clock: the manager's clock (the lost-position watchdog); a `pacing: .asFastAsPossible`
    ///     source does not wait on it.
    /// - Throws: `MatchError` when `graph` cannot serve the car matcher.
    public static func run(_ source: RouteSimulationSource, matchingOn graph: RoadGraph,
                           configuration: LiveConfiguration = .automotiveNavigation,
                           clock: some Clock<Duration> = ContinuousClock()) async throws -> SimulatedDrive {
        let manager = PositioningManager(source: source, clock: clock)
        await manager.setConfiguration(configuration)
        await manager.setMapMatcher(LiveMapMatcher(car: try MapMatcher(graph: graph)))
        await manager.setMapMatchingEnabled(true, mode: .car)
        var steps: [Step] = []
        var matched: MapMatchedUpdate?
        let events = manager.events(bufferingPolicy: .unbounded)
        await manager.start()
        loop: for await event in events {
            switch event {
            case .mapMatched(let update): matched = update
            case .updated: if let matched { steps.append(.update(matched)) }
            case .paused: steps.append(.paused)
            case .lost: steps.append(.lost)
            case .stopped: break loop
            default: continue
            }
        }
        return SimulatedDrive(route: source.polyline, steps: steps, filterReport: await manager.filterReport,
                              averageSpeed: await manager.averageSpeed)
    }
}
