import Foundation
import GeoCore
@testable import TrackFiltering

/// The plane crafted test tracks are drawn on (Ljubljana), metres east/north of the origin.
let testFrame = LocalFrame(origin: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5))
let epoch = Date(timeIntervalSince1970: 1_700_000_000)

/// A fix `t` seconds after `epoch` at `east`, `north` metres.
func fix(_ t: Double, east: Double, north: Double, accuracy: Double? = 5,
         speed: Double? = nil, speedAccuracy: Double? = nil, course: Double? = nil,
         courseAccuracy: Double? = nil) -> Location {
    Location(coordinate: testFrame.coordinate(east: east, north: north),
             timestamp: epoch.addingTimeInterval(t),
             horizontalAccuracy: accuracy.map { Distance(meters: $0) },
             speed: speed.map { Speed(metersPerSecond: $0) },
             speedAccuracy: speedAccuracy.map { Speed(metersPerSecond: $0) },
             course: course.map { Bearing(degrees: $0) }, courseAccuracy: courseAccuracy.map(Angle.degrees))
}

/// East/north of a location on the test plane, metres.
func plane(_ l: Location) -> (east: Double, north: Double) { testFrame.point(for: l.coordinate) }

/// Runs fixes through a rule alone; returns the reasons (nil = accepted).
func decisions<R: TrackFilter>(_ rule: R, _ fixes: [Location], receivedAt: [Date?]? = nil) -> [RejectionReason?] {
    var pipeline = TrackFilterPipeline(rule)
    return fixes.enumerated().map { i, f in pipeline.process(f, receivedAt: receivedAt?[i] ?? nil) }
}
