// Seed 001 — WWDC23 "Discover streamlined location updates" (Japanese transcript): the session's
// code ported to LocationKit line by line, run on a replay of the Cerknica lake walk from the
// shared data (gpxpy's test track: 2 hours on foot with short stops, 296 fixes about 14 s
// apart, replayed 2,000 times faster). `CLLocationUpdate.liveUpdates` is `LocationUpdate.liveUpdates`,
// `CLBackgroundActivitySession` is `BackgroundActivitySession`.
//
// Only the 0:26 snippet is printed in the document; the other samples are the slides the talk
// reads out (the loop that breaks on `isStationary`, `first(where:)` on speed, a
// `LiveConfiguration`, the background activity session held in a property, invalidated, and
// recreated after a relaunch), ported as the talk describes them.
//
// `CLLocationUpdate.liveUpdates()` takes no source: it reads the device. Its LocationKit
// counterpart `LocationUpdate.liveUpdates()` reads gpsd or `LOCATIONKIT_NMEA_DEVICE`, which CI
// has not, so every sample passes the replay as `source:`; everything else is the same call.
import ExampleSupport
import Foundation
import GeoCore
import GPXCodec
import Positioning
import TrackFiltering

/// The recorded walk every sample replays. Plain GPX records no accuracy: HDOP × 5 m stands in,
/// else 10 m, as the `gpx:` source URI assumes (without one the track filter refuses every fix).
let hike = try PositionLog.read(url: Example.data("gpx/gpxpy/cerknicko-jezero.gpx"),
                                accuracy: GPXAccuracyPolicy(assumed: .meters(10))).locations

/// A fresh replay of the hike (a source runs once per iteration).
func replay() throws -> LocationReplaySource {
    try LocationReplaySource(locations: hike, pacing: .speedFactor(2_000), name: "cerknicko-jezero")
}

// MARK: 0:26 — Getting location updates is easy!

/// ```swift
/// for try await update in CLLocationUpdate.liveUpdates() { print("My current location : \(update.location)") }
/// ```
/// Shows: updates with a location, paused while the hiker stands (one `isStationary` update,
/// then silence, then updates again).
func gettingLocationUpdates() async throws {
    Example.sample("0:26 Getting location updates is easy!")
    var updates: [LocationUpdate] = []
    for try await update in LocationUpdate.liveUpdates(source: try replay()) {
        if updates.count < 3 { print("My current location : \(update.location.map { "\($0.coordinate)" } ?? "nil")") }
        updates.append(update)
    }
    let stationary = updates.indices.filter { updates[$0].isStationary }
    print("  … \(updates.count) updates from \(hike.count) recorded fixes, \(stationary.count) of them isStationary")
    Example.expect(updates.allSatisfy { $0.location != nil }, "every update of a running replay has a location")
    Example.expect(!stationary.isEmpty, "the hike's stops pause updates (isStationary updates)")
    let resumed = stationary.filter { $0 + 1 < updates.count }.allSatisfy { !updates[$0 + 1].isStationary }
    Example.expect(resumed, "after each isStationary update the next update is a moving one (one pause update, then silence until it resumes)")
    Example.expect(updates.count < hike.count, "fixes of a still device are not delivered (\(hike.count - updates.count) held back)")
}

// MARK: Leaving the loop stops updates

/// The slide after 0:26: "isStationary が true と報告されたら for ループから抜け出し、自動的に
/// 更新を停止しましょう" (break out of the loop when isStationary is reported; updates stop).
/// ```swift
/// for try await update in CLLocationUpdate.liveUpdates() {
///     if update.isStationary { break }
/// }
/// ```
func breakWhenStationary() async throws {
    Example.sample("Break out of the loop when isStationary")
    let source = try replay()
    var seen = 0
    var last: LocationUpdate?
    for try await update in LocationUpdate.liveUpdates(source: source) {
        seen += 1
        last = update
        if update.isStationary { break }
    }
    let stopped = await Example.waitUntil { source.activeRuns == 0 }
    print("  left the loop after \(seen) updates, at \(last?.location.map { "\($0.timestamp)" } ?? "nil")")
    Example.expect(last?.isStationary == true, "the loop ends at the first isStationary update")
    Example.expect(stopped, "leaving the loop stops the source (no explicit stop needed)")
}

// MARK: first(where:) on the updates

/// "速度が200以上の更新が見つかるとすぐに その最初の要素が返されて処理が完了します … 最初の
/// マッチが見つかると アップデートは自動的に停止します" (the first update faster than 200 m/s
/// is returned and updates stop; beware: it waits until one matches).
/// ```swift
/// let fast = try await CLLocationUpdate.liveUpdates().first { $0.location?.speed ?? 0 > 200 }
/// ```
func firstFastUpdate() async throws {
    Example.sample("first(where:) on the updates")
    let source = try replay()
    let fast = try await LocationUpdate.liveUpdates(source: source).first { ($0.location?.speed?.metersPerSecond ?? 0) > 200 }
    print("  speed > 200 m/s: \(fast.map { "\($0)" } ?? "none: the search ran to the end of the replay (a device would wait on)")")
    Example.expect(fast == nil, "no hiker's update is faster than 200 m/s, so first(where:) waits until the source ends")
    // The same call with a threshold a hiker reaches: it returns at once and updates stop.
    let walkingSource = try replay()
    let walking = try await LocationUpdate.liveUpdates(source: walkingSource).first { ($0.location?.speed?.metersPerSecond ?? 0) > 1 }
    let stopped = await Example.waitUntil { walkingSource.activeRuns == 0 }
    print("  speed > 1 m/s: \(walking?.location.map { "\($0.timestamp), \($0.speed?.metersPerSecond ?? .nan) m/s" } ?? "none")")
    Example.expect((walking?.location?.speed?.metersPerSecond ?? 0) > 1, "first(where:) returns the first matching update")
    Example.expect(stopped, "after the first match the updates stop by themselves")
}

// MARK: LiveConfiguration

/// "LiveConfiguration 列挙型 … default, automotiveNavigation, otherNavigation, fitness, airborne".
/// ```swift
/// for try await update in CLLocationUpdate.liveUpdates(.fitness) { … }
/// ```
func liveConfigurations() async throws {
    Example.sample("liveUpdates(LiveConfiguration)")
    for configuration in [LiveConfiguration.default, .automotiveNavigation, .otherNavigation, .fitness, .airborne] {
        var updates = 0, stationary = 0
        for try await update in LocationUpdate.liveUpdates(configuration, source: try replay()) {
            updates += 1
            if update.isStationary { stationary += 1 }
        }
        print("  .\(configuration.name): \(updates) updates, \(stationary) pauses")
        Example.expect(updates > 0, ".\(configuration.name) delivers the hike")
    }
}

// MARK: CLBackgroundActivitySession

/// The app of the talk's background slides: the session is a property, not a local variable.
final class LocationsHandler: @unchecked Sendable {
    // `@unchecked`: only the single task of the sample touches the property.
    /// `self.backgroundActivity = CLBackgroundActivitySession()`
    var backgroundActivity: BackgroundActivitySession?
}

/// ```swift
/// self.backgroundActivity = CLBackgroundActivitySession()   // before starting updates
/// for try await update in CLLocationUpdate.liveUpdates() { … }
/// self.backgroundActivity.invalidate()                       // or release the object
/// ```
/// and, after a relaunch (`didFinishLaunchingWithOptions`), recreate it to rejoin the session.
/// LocationKit's session is a persisted file a restarted process rejoins by id; there is no
/// background indicator or `UIBackgroundModes` on Linux.
func backgroundActivitySession() async throws {
    Example.sample("CLBackgroundActivitySession: hold, invalidate, recreate after a relaunch")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("locationkit-example-\(getpid())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let handler = LocationsHandler()
    let start = hike[0].timestamp
    handler.backgroundActivity = try BackgroundActivitySession(id: "hike", stateDirectory: directory, logDirectory: directory, start: start)
    let stateFile = BackgroundActivitySession.stateURL(id: "hike", stateDirectory: directory)
    let source = try Optional.require(handler.backgroundActivity, "the session").loggingSource(try replay())
    var moving = 0
    for try await update in LocationUpdate.liveUpdates(source: source) {
        if !update.isStationary { moving += 1 }
        if moving == 20 { break }
    }
    let written = handler.backgroundActivity?.log.pointsWritten ?? 0
    print("  \(written) fixes logged by the session during 20 moving updates")
    Example.expect(written >= 20, "the held session records the updates")
    // The app is terminated while the session runs (a crash keeps it persisted); the
    // relaunched app recreates it in didFinishLaunching and so rejoins it.
    handler.backgroundActivity?.leaveForRestart()
    handler.backgroundActivity = nil
    handler.backgroundActivity = try BackgroundActivitySession(id: "hike", stateDirectory: directory, logDirectory: directory, start: .now)
    Example.expect(handler.backgroundActivity?.isRejoined == true, "recreating the session after a relaunch rejoins it")
    try handler.backgroundActivity?.invalidate()
    Example.expect(!FileManager.default.fileExists(atPath: stateFile.path), "invalidate() ends the session")
    // A session held only in a local variable ends when the variable goes out of scope.
    do {
        let local = try BackgroundActivitySession(id: "local", stateDirectory: directory, logDirectory: directory, start: start)
        Example.expect(FileManager.default.fileExists(atPath: BackgroundActivitySession.stateURL(id: "local", stateDirectory: directory).path),
                       "a new session is persisted while held")
        _ = local
    }
    Example.expect(!FileManager.default.fileExists(atPath: BackgroundActivitySession.stateURL(id: "local", stateDirectory: directory).path),
                   "releasing the last reference invalidates the session")
}

extension Optional {
    /// The wrapped value, or an error naming what was missing (the examples use no test framework).
    static func require(_ value: Wrapped?, _ what: String = "value") throws -> Wrapped {
        guard let value else { throw ExampleError(description: "missing \(what)") }
        return value
    }
}

/// A sample's precondition that did not hold.
struct ExampleError: Error, CustomStringConvertible { let description: String }

do {
    try await gettingLocationUpdates()
    try await breakWhenStationary()
    try await firstFastUpdate()
    try await liveConfigurations()
    try await backgroundActivitySession()
} catch {
    Example.fail("a sample threw: \(error)")
}
Example.finish()
