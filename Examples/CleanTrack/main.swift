// Seed 002 — Qiita, "iOS (CoreLocation) で位置情報の移動ルートをなるべく綺麗に記録する5つの方法"
// (five ways to record a clean route with Core Location): every code sample ported to
// LocationKit line by line, run on a replay of the Cerknica lake walk from the shared data
// (gpxpy's test track: 296 fixes about 14 s apart, replayed 1,000 times faster). The article's
// `CLLocationManager` is `PositioningManager`, its delegate `PositioningDelegate`, its
// `MKMapView` LocationKit's `MapView` with map objects.
//
// Time: the article reads the phone's clock (`timeIntervalSinceNow`). A replay of 2010 has its
// own time, so the view controller's clock is the replay's: the time of the newest fix the
// source delivered (LocationKit's rule: time comes from the fixes or an injected clock).
//
// The `ViewController.h` sample (an `@interface` with nothing in it) and the storyboard steps
// (MKMapView, start and stop buttons, Info.plist keys, Background Modes) are UI and app-bundle
// set-up with no Linux counterpart: `RouteViewController` below is the whole of `ViewController.m`.
import ExampleSupport
import Foundation
import GeoCore
import GPXCodec
import MapCamera
import MapRenderer
import MapView
import Positioning
import TrackFiltering

/// The recorded walk. Plain GPX records no accuracy: HDOP × 5 m stands in, else 10 m, as the
/// `gpx:` source URI assumes.
let walk = try PositionLog.read(url: Example.data("gpx/gpxpy/cerknicko-jezero.gpx"),
                                accuracy: GPXAccuracyPolicy(assumed: .meters(10))).locations

func replay() throws -> LocationReplaySource {
    try LocationReplaySource(locations: walk, pacing: .speedFactor(1_000), name: "cerknicko-jezero")
}

/// Runs `manager` until its source ends and returns its updates and whether it ever paused.
func run(_ manager: PositioningManager) async -> (updates: [Location], paused: Bool) {
    let events = manager.events(bufferingPolicy: .unbounded)
    await manager.start()
    var updates: [Location] = [], paused = false
    for await event in events {
        switch event {
        case .updated(let location): updates.append(location)
        case .paused: paused = true
        case .stopped: return (updates, paused)
        default: break
        }
    }
    return (updates, paused)
}

/// The shortest distance between consecutive updates, metres.
func shortestStep(_ updates: [Location]) -> Double {
    zip(updates, updates.dropFirst()).map { $0.coordinate.distance(to: $1.coordinate).meters }.min() ?? .infinity
}

// MARK: 1. CLLocationManager の取得設定を適切にする (set the manager up for what the app needs)

/// [例1] a running app that records fine detail:
/// ```objc
/// self.locationManager.desiredAccuracy = kCLLocationAccuracyBest;
/// self.locationManager.distanceFilter = 5;
/// self.locationManager.pausesLocationUpdatesAutomatically = NO;
/// self.locationManager.allowsBackgroundLocationUpdates = YES;
/// ```
/// `allowsBackgroundLocationUpdates` has no counterpart: a Linux process keeps receiving while
/// it runs; `BackgroundActivitySession` is what lets a restarted process continue the session.
func runningAppSettings() async throws -> Int {
    Example.sample("1. [例1] running app: kCLLocationAccuracyBest, distanceFilter 5, no automatic pause")
    let locationManager = PositioningManager(source: try replay())
    // 測位の精度を指定(最高精度)
    try await locationManager.setDesiredAccuracy(.accuracyBest)
    // 位置情報取得間隔を指定(5m移動したら、位置情報を通知)
    try await locationManager.setDistanceFilter(.meters(5))
    // 自動で位置情報取得がOFFになるのを防ぐ
    await locationManager.setPausesLocationUpdatesAutomatically(false)
    let (updates, paused) = await run(locationManager)
    print("  \(updates.count) updates of \(walk.count) fixes; shortest step \(String(format: "%.1f", shortestStep(updates))) m")
    Example.expect(!paused, "pausesLocationUpdatesAutomatically = NO: updates never pause, though the walk has stops")
    Example.expect(shortestStep(updates) >= 5 - 0.01, "distanceFilter = 5: consecutive updates are at least 5 m apart (1 cm tolerance)")
    return updates.count
}

/// [例2] an app that logs movement all day:
/// ```objc
/// self.locationManager.desiredAccuracy = kCLLocationAccuracyHundredMeters;
/// self.locationManager.distanceFilter = 10;
/// self.locationManager.pausesLocationUpdatesAutomatically = NO;
/// self.locationManager.allowsBackgroundLocationUpdates = YES;
/// ```
/// Sample 6 (`self.locatinManager.distanceFilter = 10;`, 5 の方法 1) is the same setter.
func loggingAppSettings(finer: Int) async throws {
    Example.sample("1. [例2] logging app: kCLLocationAccuracyHundredMeters, distanceFilter 10 (and 5. distanceFilter = 10)")
    let locationManager = PositioningManager(source: try replay())
    // 測位の精度を指定(約100mごと)
    try await locationManager.setDesiredAccuracy(.accuracyHundredMeters)
    // 位置情報取得間隔を指定(10m移動したら、位置情報を通知)
    try await locationManager.setDistanceFilter(.meters(10))
    await locationManager.setPausesLocationUpdatesAutomatically(false)
    let (updates, paused) = await run(locationManager)
    print("  \(updates.count) updates (running-app settings: \(finer)); shortest step \(String(format: "%.1f", shortestStep(updates))) m")
    Example.expect(!paused, "no automatic pause")
    Example.expect(shortestStep(updates) >= 10 - 0.01, "distanceFilter = 10: consecutive updates are at least 10 m apart (1 cm tolerance)")
    Example.expect(updates.count < finer, "a 10 m filter delivers fewer updates than a 5 m one")
}

// MARK: 2.–5. and まとめ: the view controller that keeps only valid fixes and draws the route

/// `ViewController.m`: the article's properties, its validity test, and the drawing.
@MainActor final class RouteViewController: PositioningDelegate {
    //  CLLocationManagerのインスタンス
    let locationManager: PositioningManager
    // 最後に取得した有効な位置情報
    var latestLocation: Location?
    /// When measuring started (the article's `startMeasurementDate`).
    var startMeasurementDate: Date?
    /// The replay's clock: the newest fix's time (see the header).
    var now = Date.distantPast
    let mapView: MapView<ContinuousClock.Instant>
    /// Why each fix was refused, by the article's log message; "有効データ" for valid ones.
    var verdicts: [String: Int] = [:]
    var valid: [Location] = []
    let finished: AsyncStream<Void>.Continuation
    let done: AsyncStream<Void>

    init(source: any PositionSource) throws {
        locationManager = PositioningManager(source: source)
        let camera = try CameraState(geoCenter: walk[0].coordinate, zoomLevel: 15, viewSize: ViewSize(width: 800, height: 600), projection: .mercator)
        mapView = try MapView(camera: camera, features: MapFeatureIndex([]))
        (done, finished) = AsyncStream.makeStream()
    }

    /// Starts measuring: raw fixes (no track filter, no pause), so the article's own rules do
    /// the cleaning.
    func start() async {
        await locationManager.setDelegate(self)
        await locationManager.setConfiguration(LiveConfiguration.default.unfiltered, pausesAutomatically: false)
        let events = locationManager.events()
        let finished = finished
        Task { for await event in events { if case .stopped = event { finished.yield(); finished.finish() } } }
        await locationManager.start()
    }

    nonisolated func positioningManager(_ manager: PositioningManager, didUpdateLocations locations: [Location]) async {
        await handle(locations)
    }

    func handle(_ locations: [Location]) {
        for location in locations {
            now = max(now, location.timestamp)
            if startMeasurementDate == nil { startMeasurementDate = location.timestamp }
            guard isEnableLocation(location) else { continue }
            if let latestLocation { drawRootOnMap(mapView, from: latestLocation, to: location) }
            drawPointOnMap(mapView, location: location, title: "\(valid.count + 1)")
            latestLocation = location
            valid.append(location)
        }
    }

    /// Records the article's log line for a verdict.
    private func log(_ message: String) { verdicts[message, default: 0] += 1 }

    /// 有効な位置情報か判定 (whether a fix is valid), samples 2–5 combined as the article does.
    /// ```objc
    /// - (BOOL)isEnableLocation:(CLLocation *)location { … }
    /// ```
    func isEnableLocation(_ location: Location?) -> Bool {
        // 位置情報が入っていない場合は無効
        guard let location else {
            log("位置情報が入っていない場合は無効")
            return false
        }
        // 水平精度が0以下の位置情報データの場合は無効 (sample 2: a negative accuracy means no position)
        guard let accuracy = location.horizontalAccuracy, accuracy.meters >= 0 else {
            log("水平精度が0以下の位置情報データの場合は無効")
            return false
        }
        // 垂直精度が半径100m以上のデータの場合は無効 (sample 2: only 100 m or better)
        if accuracy.meters > 100 {
            log("垂直精度が半径100m以上のデータの場合は無効")
            return false
        }
        // 現在時刻から5秒以上前の計測データの場合は無効 (sample 3). The article compares
        // `timeIntervalSinceNow`, negative for a past fix, with +5, which never holds; the age
        // is its negation.
        let duration = -location.timestamp.timeIntervalSince(now)
        if duration >= 5 {
            log("現在時刻から5秒以上前の計測データの場合は無効")
            return false
        }
        // 計測開始時間から、10秒以内の場合は無効 (sample 4: the first seconds after the start)
        let diffStartTime = location.timestamp.timeIntervalSince1970 - (startMeasurementDate ?? location.timestamp).timeIntervalSince1970
        if diffStartTime < 10 {
            log("計測開始時間から、10秒以内の場合は無効")
            return false
        }
        // 初回データの場合は、この時点で有効データと判定
        guard let latestLocation else {
            log("有効データ")
            return true
        }
        // 前回取得したデータより古いデータの場合は無効
        if latestLocation.timestamp.timeIntervalSince1970 > location.timestamp.timeIntervalSince1970 {
            log("前回取得したデータより古いデータの場合は無効")
            return false
        }
        // 前回取得した位置情報との距離を計算 (sample 5: `distanceFromLocation:`)
        let distance = abs(latestLocation.coordinate.distance(to: location.coordinate).meters)
        // 前回取得した位置情報の精度
        let latestAccuracy = latestLocation.horizontalAccuracy?.meters ?? 0
        // 前回取得したデータからの移動距離が取得精度以下 かつ 前回の取得精度以下の精度の場合は無効
        // ※ただし、horizontalAccuracyは取得できる値よりも精度が高い気がするので、適当に1/2にして使用した
        let isAcceptableDistance = distance < latestAccuracy / 2.0
        let isLessAccuracy = latestAccuracy >= accuracy.meters
        if isAcceptableDistance && isLessAccuracy {
            log("前回取得したデータからの移動距離が取得精度以下 かつ 前回の取得精度以下の精度の場合は無効")
            return false
        }
        // 有効な位置情報
        log("有効データ")
        return true
    }

    /// 地図上にポイントを描画. `MKPointAnnotation.title` has no counterpart: LocationKit's
    /// `MapMarker` carries no title (an API gap, listed in the README's Examples section).
    /// ```objc
    /// - (void)drawPointOnMap:(MKMapView *)map location:(CLLocation *)location title:(NSString *)title
    /// ```
    func drawPointOnMap(_ map: MapView<ContinuousClock.Instant>, location: Location, title: String) {
        _ = map.add(.marker(MapMarker(location.coordinate)))
    }

    /// 地図上にルートを描画: a two-point polyline from the previous valid fix.
    /// ```objc
    /// - (void)drawRootOnMap:(MKMapView *)map from:(CLLocation *)from to:(CLLocation *)to
    /// ```
    func drawRootOnMap(_ map: MapView<ContinuousClock.Instant>, from: Location, to: Location) {
        _ = map.add(.polyline(MapPolyline([from.coordinate, to.coordinate])))
    }
}

func cleanRoute() async throws {
    Example.sample("まとめ: isEnableLocation, drawPointOnMap, drawRootOnMap (samples 2, 3, 4 and 5 inside)")
    let controller = try await RouteViewController(source: try replay())
    await controller.start()
    for await _ in await controller.done { break }
    // The delegate hears the last batches after the stop: wait until every fix was judged.
    _ = await Example.waitUntil { await controller.verdicts.values.reduce(0, +) >= walk.count }
    let (verdicts, valid, objects) = await MainActor.run { (controller.verdicts, controller.valid, controller.mapView.mapObjects) }
    for (message, count) in verdicts.sorted(by: { $0.value > $1.value }) { print("  \(count) × \(message)") }
    let markers = objects.filter { if case .marker = $0 { true } else { false } }.count
    let lines = objects.filter { if case .polyline = $0 { true } else { false } }.count
    print("  \(valid.count) valid fixes of \(walk.count): \(markers) points and \(lines) route pieces on the map")
    Example.expect(verdicts.values.reduce(0, +) == walk.count, "every fix the replay delivered was judged")
    Example.expect(!valid.isEmpty && valid.count < walk.count, "some fixes are valid, some refused")
    let start = walk[0].timestamp
    Example.expect(valid.allSatisfy { $0.timestamp.timeIntervalSince(start) >= 10 }, "nothing within 10 s of the start is valid")
    Example.expect(valid.allSatisfy { ($0.horizontalAccuracy?.meters ?? .infinity) <= 100 }, "every valid fix is 100 m or better")
    Example.expect(zip(valid, valid.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp }, "valid fixes never go back in time")
    Example.expect(markers == valid.count && lines == valid.count - 1, "one point per valid fix and one route piece between each two")
}

do {
    let finer = try await runningAppSettings()
    try await loggingAppSettings(finer: finer)
    try await cleanRoute()
} catch {
    Example.fail("a sample threw: \(error)")
}
Example.finish()
