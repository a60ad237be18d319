// Seed 003 — Apple's CLLocationManagerDelegate protocol reference (Russian translation, iOS 8
// era): each method's declaration, Swift and Objective-C, ported to LocationKit's
// `PositioningDelegate` and called for real:
// - locations, pauses, deferred delivery, visits and regions on a replay of the Cerknica lake
//   walk from the shared data (296 fixes about 14 s apart, replayed 2,000 times faster);
// - headings from a Hemisphere receiver's recorded NMEA (`nmea/hemi.log`, HDT sentences);
// - calibration, heading failure and authorization from the app's own compass and source;
// - beacon ranging from a recorded advertisement replay, and its failure from BlueZ on a
//   system bus that is not there.
import BeaconScanning
import Compass
import ExampleSupport
import Foundation
import GeoCore
import GPXCodec
import Monitoring
import NMEACodec
import Positioning
import Synchronization
import TrackFiltering

/// Every delegate call, by method, in order.
final class Recorder: Sendable {
    private let calls = Mutex<[String]>([])
    private let values = Mutex<[String: [String]]>([:])
    func record(_ method: String, _ value: String = "") {
        calls.withLock { $0.append(method) }
        values.withLock { $0[method, default: []].append(value) }
    }
    func count(_ method: String) -> Int { calls.withLock { $0.filter { $0 == method }.count } }
    func values(_ method: String) -> [String] { values.withLock { $0[method] ?? [] } }
    var order: [String] { calls.withLock { $0 } }
}

/// The delegate: one method per declaration of the document, each recording what it got.
final class LocationDelegate: PositioningDelegate {
    let recorder = Recorder()
    /// What `shouldDisplayHeadingCalibration` answers.
    let showsCalibration = true
    /// Sizes of the `locations` arrays received, to see batches.
    let batchSizes = Mutex<[Int]>([])

    /// ```swift
    /// optional func locationManager(_ manager: CLLocationManager!, didUpdateLocations locations: [AnyObject]!)
    /// ```
    /// ```objc
    /// - (void)locationManager:(CLLocationManager *)manager didUpdateLocations:(NSArray *)locations
    /// ```
    func positioningManager(_ manager: PositioningManager, didUpdateLocations locations: [Location]) async {
        batchSizes.withLock { $0.append(locations.count) }
        let inOrder = zip(locations, locations.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp }
        recorder.record("didUpdateLocations", inOrder ? "ordered" : "unordered")
    }

    /// ```swift
    /// optional func locationManager(_ manager: CLLocationManager!, didFailWithError error: NSError!)
    /// ```
    /// ```objc
    /// - (void)locationManager:(CLLocationManager *)manager didFailWithError:(NSError *)error
    /// ```
    func positioningManager(_ manager: PositioningManager, didFailWithError error: PositioningError) async {
        recorder.record("didFailWithError", "\(error.code)")
    }

    /// ```swift
    /// optional func locationManager(_ manager: CLLocationManager!, didFinishDeferredUpdatesWithError error: NSError!)
    /// ```
    /// ```objc
    /// - (void)locationManager:(CLLocationManager *)manager didFinishDeferredUpdatesWithError:(NSError *)error
    /// ```
    func positioningManager(_ manager: PositioningManager, didFinishDeferredUpdatesWithError error: PositioningError?) async {
        recorder.record("didFinishDeferredUpdatesWithError", error.map { "\($0.code)" } ?? "nil")
    }

    // ```objc
    // - (void)locationManager:(CLLocationManager *)manager didUpdateToLocation:(CLLocation *)newLocation fromLocation:(CLLocation *)oldLocation
    // ```
    // Not ported: the document marks it deprecated (iOS 6 replaced it with didUpdateLocations),
    // and LocationKit has only `didUpdateLocations`; the old and new locations are the last
    // two of what it delivered.

    /// ```swift
    /// optional func locationManagerDidPauseLocationUpdates(_ manager: CLLocationManager!)
    /// ```
    /// ```objc
    /// - (void)locationManagerDidPauseLocationUpdates:(CLLocationManager *)manager
    /// ```
    func positioningManagerDidPauseLocationUpdates(_ manager: PositioningManager) async {
        recorder.record("didPause")
    }

    /// ```swift
    /// optional func locationManagerDidResumeLocationUpdates(_ manager: CLLocationManager!)
    /// ```
    /// ```objc
    /// - (void)locationManagerDidResumeLocationUpdates:(CLLocationManager *)manager
    /// ```
    func positioningManagerDidResumeLocationUpdates(_ manager: PositioningManager) async {
        recorder.record("didResume")
    }

    /// ```swift
    /// optional func locationManager(_ manager: CLLocationManager!, didUpdateHeading newHeading: CLHeading!)
    /// ```
    /// ```objc
    /// - (void)locationManager:(CLLocationManager *)manager didUpdateHeading:(CLHeading *)newHeading
    /// ```
    func positioningManager(_ manager: PositioningManager, didUpdateHeading heading: Heading) async {
        recorder.record("didUpdateHeading", String(format: "%.2f", heading.trueHeading?.degrees ?? .nan))
    }

    /// ```swift
    /// optional func locationManagerShouldDisplayHeadingCalibration(_ manager: CLLocationManager!) -> Bool
    /// ```
    /// ```objc
    /// - (BOOL)locationManagerShouldDisplayHeadingCalibration:(CLLocationManager *)manager
    /// ```
    func positioningManagerShouldDisplayHeadingCalibration(_ manager: PositioningManager) async -> Bool {
        recorder.record("shouldDisplayHeadingCalibration")
        return showsCalibration
    }

    /// ```swift
    /// optional func locationManager(_ manager: CLLocationManager!, didEnterRegion region: CLRegion!)
    /// ```
    /// ```objc
    /// - (void)locationManager:(CLLocationManager *)manager didEnterRegion:(CLRegion *)region
    /// ```
    func positioningManager(_ manager: PositioningManager, didEnterRegion region: MonitoredRegion) async {
        recorder.record("didEnterRegion", region.identifier)
    }

    /// ```swift
    /// optional func locationManager(_ manager: CLLocationManager!, didExitRegion region: CLRegion!)
    /// ```
    /// ```objc
    /// - (void)locationManager:(CLLocationManager *)manager didExitRegion:(CLRegion *)region
    /// ```
    func positioningManager(_ manager: PositioningManager, didExitRegion region: MonitoredRegion) async {
        recorder.record("didExitRegion", region.identifier)
    }

    /// ```swift
    /// optional func locationManager(_ manager: CLLocationManager!, didDetermineState state: CLRegionState, forRegion region: CLRegion!)
    /// ```
    /// ```objc
    /// - (void)locationManager:(CLLocationManager *)manager didDetermineState:(CLRegionState)state forRegion:(CLRegion *)region
    /// ```
    func positioningManager(_ manager: PositioningManager, didDetermineState state: RegionState, for region: MonitoredRegion) async {
        recorder.record("didDetermineState", "\(state)")
    }

    /// ```swift
    /// optional func locationManager(_ manager: CLLocationManager!, monitoringDidFailForRegion region: CLRegion!, withError error: NSError!)
    /// ```
    /// ```objc
    /// - (void)locationManager:(CLLocationManager *)manager monitoringDidFailForRegion:(CLRegion *)region withError:(NSError *)error
    /// ```
    func positioningManager(_ manager: PositioningManager, monitoringDidFailFor region: MonitoredRegion?, withError error: MonitoringError) async {
        recorder.record("monitoringDidFailForRegion", region?.identifier ?? "all")
    }

    /// ```swift
    /// optional func locationManager(_ manager: CLLocationManager!, didStartMonitoringForRegion region: CLRegion!)
    /// ```
    /// ```objc
    /// - (void)locationManager:(CLLocationManager *)manager didStartMonitoringForRegion:(CLRegion *)region
    /// ```
    func positioningManager(_ manager: PositioningManager, didStartMonitoringFor region: MonitoredRegion) async {
        recorder.record("didStartMonitoringForRegion", region.identifier)
    }

    /// ```swift
    /// optional func locationManager(_ manager: CLLocationManager!, didRangeBeacons beacons: [AnyObject]!, inRegion region: CLBeaconRegion!)
    /// ```
    /// ```objc
    /// - (void)locationManager:(CLLocationManager *)manager didRangeBeacons:(NSArray *)beacons inRegion:(CLBeaconRegion *)region
    /// ```
    func positioningManager(_ manager: PositioningManager, didRange beacons: [RangedBeacon], satisfying constraint: BeaconIdentityCondition) async {
        recorder.record("didRangeBeacons", "\(beacons.count)")
    }

    /// ```swift
    /// optional func locationManager(_ manager: CLLocationManager!, rangingBeaconsDidFailForRegion region: CLBeaconRegion!, withError error: NSError!)
    /// ```
    /// ```objc
    /// - (void)locationManager:(CLLocationManager *)manager rangingBeaconsDidFailForRegion:(CLBeaconRegion *)region withError:(NSError *)error
    /// ```
    func positioningManager(_ manager: PositioningManager, rangingBeaconsDidFailFor constraint: BeaconIdentityCondition, withError error: MonitoringError) async {
        recorder.record("rangingBeaconsDidFailForRegion", "\(error)")
    }

    /// ```swift
    /// optional func locationManager(_ manager: CLLocationManager!, didVisit visit: CLVisit!)
    /// ```
    /// ```objc
    /// - (void)locationManager:(CLLocationManager *)manager didVisit:(CLVisit *)visit
    /// ```
    func positioningManager(_ manager: PositioningManager, didVisit visit: Visit) async {
        recorder.record("didVisit", visit.departureDate == .distantFuture ? "arrival" : "departure")
    }

    /// ```swift
    /// optional func locationManager(_ manager: CLLocationManager!, didChangeAuthorizationStatus status: CLAuthorizationStatus)
    /// ```
    /// ```objc
    /// - (void)locationManager:(CLLocationManager *)manager didChangeAuthorizationStatus:(CLAuthorizationStatus)status
    /// ```
    func positioningManager(_ manager: PositioningManager, didChangeAuthorization status: AuthorizationStatus) async {
        recorder.record("didChangeAuthorizationStatus", "\(status)")
    }
}

/// Runs `manager` until its source ends and the delegate has heard everything before the stop.
func runToEnd(_ manager: PositioningManager, _ delegate: LocationDelegate) async {
    let events = manager.events(bufferingPolicy: .unbounded)
    await manager.start()
    for await event in events { if case .stopped = event { break } }
    // The delegate is called on its own task after the events: let its queue drain.
    _ = await Example.waitUntil(timeout: .seconds(5)) { await manager.isRunning == false }
    try? await Task.sleep(for: .milliseconds(200))
}

// MARK: Locations, pauses, deferred updates, visits, regions (the Cerknica walk)

func walkCallbacks() async throws {
    Example.sample("didUpdateLocations, pause / resume, deferred updates, visits and regions on the Cerknica walk")
    let walk = try PositionLog.read(url: Example.data("gpx/gpxpy/cerknicko-jezero.gpx"), accuracy: GPXAccuracyPolicy(assumed: .meters(10))).locations
    let manager = PositioningManager(source: try LocationReplaySource(locations: walk, pacing: .speedFactor(2_000), name: "cerknicko-jezero"))
    let delegate = LocationDelegate()
    await manager.setDelegate(delegate)
    try await manager.startMonitoringVisits()
    // 100 m around the lakeside spot where the walkers stopped for six minutes (14:35–14:41).
    let spot = try Coordinate(latitude: 45.768884626, longitude: 14.356526225)
    await manager.startMonitoring(for: MonitoredRegion(identifier: "lakeside", condition: .circle(try CircularGeographicCondition(center: spot, radius: .meters(100)))))
    // Hold updates back until 500 m were walked (or an hour passed).
    try await manager.allowDeferredLocationUpdates(untilTraveled: .meters(500), timeout: .seconds(3_600))
    await runToEnd(manager, delegate)
    let r = delegate.recorder
    let batches = delegate.batchSizes.withLock { $0 }
    for method in ["didUpdateLocations", "didFinishDeferredUpdatesWithError", "didPause", "didResume", "didVisit",
                   "didStartMonitoringForRegion", "didDetermineState", "didEnterRegion", "didExitRegion"] {
        print("  \(method): \(r.count(method))× \(Array(Set(r.values(method))).sorted().filter { !$0.isEmpty })")
    }
    print("  largest locations array: \(batches.max() ?? 0)")
    Example.expect(r.count("didUpdateLocations") > 0 && r.values("didUpdateLocations").allSatisfy { $0 == "ordered" },
                   "didUpdateLocations: arrays oldest first, the newest last")
    Example.expect(r.values("didFinishDeferredUpdatesWithError").first == "nil" && (batches.first ?? 0) > 1,
                   "deferred updates end without error after 500 m, delivered as one array of several locations")
    Example.expect(r.count("didPause") >= 1 && r.count("didResume") >= 1, "the walk's stops pause and resume updates")
    let visits = r.values("didVisit")
    Example.expect(visits.first == "arrival" && visits.contains("departure"), "didVisit: the arrival while the stay goes on, then the departure")
    Example.expect(r.values("didStartMonitoringForRegion") == ["lakeside"], "didStartMonitoringForRegion for the region")
    Example.expect(r.count("didDetermineState") >= 2, "didDetermineState with each state change")
    Example.expect(r.values("didEnterRegion") == ["lakeside"] && r.values("didExitRegion") == ["lakeside"],
                   "didEnterRegion when the walk reaches the spot, didExitRegion when it leaves")
    if let enter = r.order.firstIndex(of: "didEnterRegion"), let exit = r.order.firstIndex(of: "didExitRegion") {
        Example.expect(enter < exit, "enter before exit")
    }
}

// MARK: Headings (recorded NMEA with HDT)

func headingCallbacks() async throws {
    Example.sample("didUpdateHeading from a receiver's HDT sentences (nmea/hemi.log)")
    let manager = PositioningManager(source: NMEASource(.file(Example.data("nmea/hemi.log").path)))
    let delegate = LocationDelegate()
    await manager.setDelegate(delegate)
    await manager.startUpdatingHeading()
    await runToEnd(manager, delegate)
    let headings = delegate.recorder.values("didUpdateHeading")
    print("  \(headings.count) headings, first \(headings.first ?? "none")°")
    // hemi.log is a receiver standing still: its HDT headings stay within the 1° headingFilter.
    Example.expect(!headings.isEmpty && headings.allSatisfy { Double($0).map { (0..<360).contains($0) } ?? false },
                   "didUpdateHeading with true headings in [0, 360)°")
}

// MARK: Calibration, heading failure, authorization (the app's own compass and source)

func compassAndAuthorizationCallbacks() async throws {
    Example.sample("shouldDisplayHeadingCalibration, didFailWithError (heading failure), didChangeAuthorizationStatus")
    let source = CustomPositionSource(name: "app")
    let manager = PositioningManager(source: source)
    let delegate = LocationDelegate()
    await manager.setDelegate(delegate)
    await manager.start()
    _ = await Example.waitUntil { source.activeRuns == 1 }
    let fix = Location(coordinate: try Coordinate(latitude: 45.7721, longitude: 14.3576), timestamp: Date(timeIntervalSince1970: 1_281_018_308),
                       horizontalAccuracy: .meters(5))
    source.yield(fix)
    _ = await Example.waitUntil { await manager.rawPosition != nil }
    await manager.startUpdatingHeading()
    // The magnetometer asks for calibration, then is calibrated, then fails (an alarm).
    try await manager.updateHeading(Heading(timestamp: fix.timestamp, magneticHeading: .degrees(120), sensorStatus: .calibrationAlarm))
    // The app shows its calibration guidance (the delegate answered true), the user calibrates.
    _ = await Example.waitUntil { await manager.isDisplayingHeadingCalibration }
    try await manager.updateHeading(Heading(timestamp: fix.timestamp + 1, magneticHeading: .degrees(125), sensorStatus: .normal))
    try await manager.updateHeading(Heading(timestamp: fix.timestamp + 2, magneticHeading: .degrees(128), sensorStatus: .highAlarm))
    // The device refuses access, then grants it again and a fix arrives.
    source.reportAuthorization(.denied)
    _ = await Example.waitUntil { await manager.authorizationStatus == .denied }
    source.yield(Location(coordinate: fix.coordinate, timestamp: fix.timestamp + 3, horizontalAccuracy: .meters(5)))
    let r = delegate.recorder
    _ = await Example.waitUntil { r.values("didChangeAuthorizationStatus").count >= 3 }
    await manager.stop()
    print("  calibration asked \(r.count("shouldDisplayHeadingCalibration"))×; errors \(r.values("didFailWithError")); authorization \(r.values("didChangeAuthorizationStatus"))")
    Example.expect(r.count("shouldDisplayHeadingCalibration") == 1 && r.count("didUpdateHeading") == 2,
                   "the calibration question once, when the alarm starts; both usable headings delivered")
    Example.expect(await manager.isDisplayingHeadingCalibration == false, "a calibrated heading ends the calibration display")
    Example.expect(r.values("didFailWithError").contains("\(PositioningError.Code.headingFailure)"), "a magnetometer alarm is kCLErrorHeadingFailure")
    // kCLErrorDenied (`didFailWithError` `.denied`) comes with a device that refuses to open
    // (EACCES): CI runs as root, which every device opens for, so it is not shown here; an app's
    // source that reports `.denied` itself changes the status only (above).
    Example.expect(r.values("didChangeAuthorizationStatus") == ["authorized", "denied", "authorized"],
                   "didChangeAuthorizationStatus: authorized with the first fix, denied, then authorized when a fix can be read again")
}

// MARK: Beacons

/// An iBeacon advertisement (Apple's layout: flags, then manufacturer data 0x004C, type 0x02,
/// length 0x15, UUID, major, minor, measured power at 1 m) as hexadecimal AD structures.
func iBeacon(uuid: String, major: UInt16, minor: UInt16, power: Int8) -> String {
    "0201061aff4c000215" + uuid.replacingOccurrences(of: "-", with: "").lowercased()
        + String(format: "%04x%04x%02x", major, minor, UInt8(bitPattern: power))
}

func beaconCallbacks() async throws {
    Example.sample("didRangeBeacons from recorded advertisements; rangingBeaconsDidFail and monitoringDidFailForRegion without BlueZ")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("locationkit-beacons-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    let start = Date()
    var lines = ""
    for tenth in 0..<30 { // 3 s of a beacon advertising ten times a second at about −60 dBm
        let time = start.addingTimeInterval(Double(tenth) / 10).formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
        lines += "{\"time\":\"\(time)\",\"address\":\"C4:7C:8D:6A:3E:01\",\"rssi\":\(-60 - tenth % 3),\"data\":\"\(iBeacon(uuid: uuid, major: 1, minor: 7, power: -59))\"}\n"
    }
    let file = directory.appendingPathComponent("beacons.jsonl")
    try Data(lines.utf8).write(to: file)
    let constraint = try BeaconIdentityCondition(uuid: UUID(uuidString: uuid) ?? UUID(), major: 1)
    let manager = PositioningManager(source: CustomPositionSource())
    let delegate = LocationDelegate()
    await manager.setDelegate(delegate)
    await manager.setBeaconScanner(try BeaconReplayScanner(path: file.path))
    await manager.startRangingBeacons(satisfying: constraint)
    let r = delegate.recorder
    _ = await Example.waitUntil { r.values("didRangeBeacons").contains("1") }
    await manager.stopRangingBeacons(satisfying: constraint)
    print("  ranging reports: \(r.values("didRangeBeacons").prefix(5))")
    Example.expect(r.values("didRangeBeacons").contains("1"), "didRangeBeacons lists the beacon in range")

    // BlueZ, the live scanner, on a system bus that does not exist: ranging and the beacon
    // region fail with a typed error.
    setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=\(directory.path)/no-bus", 1)
    await manager.setBeaconScanner(nil)
    await manager.startMonitoring(for: MonitoredRegion(identifier: "door", condition: .beacon(constraint)))
    await manager.startRangingBeacons(satisfying: constraint)
    _ = await Example.waitUntil { r.count("rangingBeaconsDidFailForRegion") > 0 && r.count("monitoringDidFailForRegion") > 0 }
    print("  ranging failed: \(r.values("rangingBeaconsDidFailForRegion").first ?? "no")")
    Example.expect(r.count("rangingBeaconsDidFailForRegion") == 1, "rangingBeaconsDidFailForRegion when the scanner cannot run")
    Example.expect(r.values("monitoringDidFailForRegion") == ["door"], "monitoringDidFailForRegion for the beacon region, with the same error")
}

do {
    try await walkCallbacks()
    try await headingCallbacks()
    try await compassAndAuthorizationCallbacks()
    try await beaconCallbacks()
} catch {
    Example.fail("a sample threw: \(error)")
}
Example.finish()
