// Seed 000 — HERE SDK for iOS developer guide, "Basic positioning" (Japanese): every code sample
// ported to LocationKit line by line, run on a replay of the Cerknica lake walk from the shared
// data (gpxpy's test track: 296 fixes about 14 s apart, replayed 200 times faster). The seed's
// `NMAPositioningManager` is `PositioningManager`, its notifications are
// `Notification.Name.positioningManagerDidUpdatePosition` / `…DidLosePosition`, its
// `NMAMapView` is `MapView`, its `NMALoggedPositionSource` is `LocationReplaySource`.
//
// Selectors (`@selector(positionDidUpdate)`) do not exist in Swift on Linux: an observer is a
// closure (`addObserver(forName:object:queue:using:)`), and since the manager is an actor, the
// closure hands the notification to the view controller's actor, which reads `currentPosition`
// as the seed's handler does.
import ExampleSupport
import Foundation
import GeoCore
import GPXCodec
import MapCamera
import MapRenderer
import MapView
import Positioning
import TrackFiltering

/// The recorded walk every sample replays. Plain GPX records no accuracy: HDOP × 5 m stands in,
/// else 10 m, as the `gpx:` source URI assumes (without one the track filter refuses every fix).
let walk = try PositionLog.read(url: Example.data("gpx/gpxpy/cerknicko-jezero.gpx"),
                                accuracy: GPXAccuracyPolicy(assumed: .meters(10))).locations
/// Every recorded coordinate, to tell a raw fix from an estimate.
let recorded = Set(walk.map { "\($0.coordinate.latitude),\($0.coordinate.longitude)" })

/// The seed's `dataSource`: a logged-position replay, 200 × faster than recorded.
func replay() throws -> LocationReplaySource {
    try LocationReplaySource(locations: walk, pacing: .speedFactor(200), name: "cerknicko-jezero")
}

/// A map view as the seed's view controller owns one (800 × 600, Mercator, no map data needed
/// for the camera to follow the position).
@MainActor func makeMapView() throws -> MapView<ContinuousClock.Instant> {
    let camera = try CameraState(geoCenter: walk[0].coordinate, zoomLevel: 15,
                                 viewSize: ViewSize(width: 800, height: 600), projection: .mercator)
    return try MapView(camera: camera, features: MapFeatureIndex([]))
}

// MARK: Sample 1 — registering and unregistering for update notifications

/// ```objc
/// [[NSNotificationCenter defaultCenter] addObserver:self selector:@selector(methodName)
///   name:NMAPositioningManagerDidUpdatePositionNotification object:[NMAPositioningManager sharedPositioningManager]];
/// [[NSNotificationCenter defaultCenter] removeObserver:self
///   name:NMAPositioningManagerDidUpdatePositionNotification object:[NMAPositioningManager sharedPositioningManager]];
/// ```
/// Shows: notifications arrive while registered and stop once the observer is removed.
func registerAndUnregisterForUpdates() async throws {
    Example.sample("Sample 1: addObserver / removeObserver for DidUpdatePosition")
    let source = try replay()
    let manager = PositioningManager(source: source)
    let received = Counter()
    let observer = NotificationCenter.default.addObserver(forName: .positioningManagerDidUpdatePosition,
                                                          object: manager, queue: nil) { _ in received.increment() }
    await manager.start()
    let gotSome = await Example.waitUntil { received.value >= 5 }
    NotificationCenter.default.removeObserver(observer)
    let atRemoval = received.value
    let rawAtRemoval = await manager.rawPosition?.timestamp
    // Let the replay deliver ten more fixes to the manager.
    let movedOn = await Example.waitUntil {
        guard let now = await manager.rawPosition?.timestamp, let then = rawAtRemoval else { return false }
        return now.timeIntervalSince(then) > 10 * 14
    }
    await manager.stop()
    print("  notifications while registered: \(atRemoval); after removeObserver: \(received.value - atRemoval)")
    Example.expect(gotSome, "DidUpdatePosition is posted to a registered observer")
    Example.expect(movedOn && received.value == atRemoval, "no notification after removeObserver while fixes keep coming")
}

// MARK: Sample 2 — a view controller that starts positioning and follows the position

/// The seed's `UIViewController` (samples 2 and 3, and sample 5's `positionDidUpdate`).
@MainActor final class PositionViewController {
    let manager: PositioningManager
    let source: LocationReplaySource
    let mapView: MapView<ContinuousClock.Instant>
    private var observers: [any NSObjectProtocol] = []
    /// The posts handed from the manager's actor to this one, in order.
    private let posts: AsyncStream<Notification.Name>
    private let postsIn: AsyncStream<Notification.Name>.Continuation
    // What the handlers saw, for the checks.
    var updates = 0, rawUpdates = 0, losses = 0, nilAfterLoss = false
    var lastCentre: Coordinate?

    init() throws {
        source = try replay()
        manager = PositioningManager(source: source)
        mapView = try makeMapView()
        (posts, postsIn) = AsyncStream.makeStream()
    }

    /// ```objc
    /// - (void)viewDidLoad {
    ///   if ([[NMAPositioningManager sharedPositioningManager] startPositioning]) {
    ///     [[NSNotificationCenter defaultCenter] addObserver:self selector:@selector(positionDidUpdate)
    ///       name:NMAPositioningManagerDidUpdatePositionNotification object:[NMAPositioningManager sharedPositioningManager]];
    ///     [[NSNotificationCenter defaultCenter] addObserver:self selector:@selector(didLosePosition)
    ///       name:NMAPositioningManagerDidLosePositionNotification object:[NMAPositioningManager sharedPositioningManager]];
    ///   }
    /// }
    /// ```
    func viewDidLoad() async {
        if await manager.start() {
            // Register to positioning manager notifications
            let postsIn = postsIn
            observers.append(NotificationCenter.default.addObserver(forName: .positioningManagerDidUpdatePosition,
                                                                    object: manager, queue: nil) { _ in postsIn.yield(.positioningManagerDidUpdatePosition) })
            observers.append(NotificationCenter.default.addObserver(forName: .positioningManagerDidLosePosition,
                                                                    object: manager, queue: nil) { _ in postsIn.yield(.positioningManagerDidLosePosition) })
        }
    }

    /// ```objc
    /// - (void)positionDidUpdate {
    ///   NMAGeoPosition *position = [[NMAPositioningManager sharedPositioningManager] currentPosition];
    ///   [_mapView setGeoCenter:position.coordinates withAnimation:NMAMapAnimationLinear];
    /// }
    /// ```
    func positionDidUpdate() async {
        let position = await manager.currentPosition
        // nil when the position was lost between the post and this read, as HERE's is.
        guard let position else { return }
        try? mapView.camera.set(CameraOptions(geoCenter: position.coordinate), animation: .linear, at: .now)
        updates += 1
        // Map matching is off (the seed's default): currentPosition is the raw, recorded fix.
        if recorded.contains("\(position.coordinate.latitude),\(position.coordinate.longitude)") { rawUpdates += 1 }
        lastCentre = position.coordinate
    }

    /// ```objc
    /// - (void)didLosePosition { ... }
    /// ```
    func didLosePosition() async {
        losses += 1
        nilAfterLoss = await manager.currentPosition == nil
    }

    /// ```objc
    /// - (void)viewWillDisappear:(BOOL)animated {
    ///   [[NMAPositioningManager sharedPositioningManager] stopPositioning];
    ///   [[NSNotificationCenter defaultCenter] removeObserver:self name:NMAPositioningManagerDidUpdatePositionNotification object:…];
    ///   [[NSNotificationCenter defaultCenter] removeObserver:self name:NMAPositioningManagerDidLosePositionNotification object:…];
    /// }
    /// ```
    func viewWillDisappear() async {
        await manager.stop()
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
        observers.removeAll()
        postsIn.finish()
    }

    /// The run loop of the seed's app: handles the posts in order; after 15 updates the replay's
    /// `positionLost` fault is switched on (the seed's `NMALoggedPositionSource.positionLost`),
    /// and the view disappears after the loss.
    func run() async {
        for await name in posts {
            if name == .positioningManagerDidUpdatePosition {
                await positionDidUpdate()
                if updates == 15 { source.faults.isPositionLost = true }
            } else {
                await didLosePosition()
                await viewWillDisappear()
            }
        }
    }
}

func viewControllerFollowsThePosition() async throws {
    Example.sample("Samples 2, 3 and 5: viewDidLoad, positionDidUpdate, didLosePosition, viewWillDisappear")
    let controller = try await PositionViewController()
    await controller.viewDidLoad()
    await controller.run()
    let (updates, raw, losses, nilAfterLoss) = await (controller.updates, controller.rawUpdates, controller.losses, controller.nilAfterLoss)
    let centre = await MainActor.run { () -> Coordinate? in
        controller.mapView.camera.advance(to: .now + .seconds(1)) // the 0.5 s linear animation ends
        return controller.mapView.camera.state.geoCenter
    }
    let last = await controller.lastCentre
    print("  positionDidUpdate: \(updates) times, \(raw) of them the raw recorded fix; didLosePosition: \(losses)")
    if let centre { print("  map centre after the last update: \(centre.latitude), \(centre.longitude)") }
    Example.expect(updates >= 15, "positionDidUpdate is called for each update (15 before the loss)")
    Example.expect(raw == updates, "currentPosition is the raw position while map matching is off")
    Example.expect(losses == 1, "one didLosePosition when the replay's positionLost is switched on")
    Example.expect(nilAfterLoss, "currentPosition is nil while the position is lost")
    if let centre, let last {
        Example.expect(centre.distance(to: last).meters < 0.01, "setGeoCenter withAnimation: linear ends on the current position")
    } else {
        Example.fail("the map view was centred on a position")
    }
    let (running, current) = await (controller.manager.isRunning, controller.manager.currentPosition)
    Example.expect(!running && current == nil, "after stopPositioning the manager is stopped and currentPosition is nil")
}

// MARK: Sample 4 — the position indicator

/// ```objc
/// // Display position indicator
/// mapView.positionIndicator.visible = YES;
/// ```
/// Shows: making the indicator visible starts positioning (the seed: "setting NMAPositionIndicator
/// visible automatically enables NMAPositioningManager updates"), and the indicator shows the
/// current position. The view knows no manager: the app says what `visible` starts.
@MainActor func positionIndicatorVisible() async throws {
    Example.sample("Sample 4: mapView.positionIndicator.visible = YES")
    let manager = PositioningManager(source: try replay())
    let mapView = try makeMapView()
    mapView.positionIndicator.startPositioning = { await manager.start() }
    let events = manager.events(bufferingPolicy: .unbounded)
    // Display position indicator
    mapView.positionIndicator.isVisible = true
    var shown = 0, matchesCurrent = 0
    for await event in events {
        guard case .updated = event else { continue }
        let (raw, matched, current) = await (manager.rawPosition, manager.mapMatchedPosition, manager.currentPosition)
        mapView.showPosition(raw: raw, mapMatched: matched, current: current, at: .now)
        shown += 1
        if let current, mapView.positionIndicator.location == current { matchesCurrent += 1 }
        if shown == 5 { break }
    }
    await manager.stop()
    print("  positions shown on the indicator: \(shown)")
    Example.expect(shown == 5, "making the indicator visible started positioning (5 updates arrived)")
    Example.expect(matchesCurrent == 5, "the indicator shows the manager's current position")
}

// MARK: Run

do {
    try await registerAndUnregisterForUpdates()
    try await viewControllerFollowsThePosition()
    try await positionIndicatorVisible()
} catch {
    Example.fail("a sample threw: \(error)")
}
Example.finish()
