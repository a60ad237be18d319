import Foundation
import GeoCore
import Positioning

/// A fix at `north` metres north of 48° N 11° E (1° of latitude ≈ 111 195 m there), `t` seconds
/// after a fixed epoch.
func fix(north: Double = 0, east: Double = 0, t: Double, accuracy: Double? = 5, speed: Double? = nil) -> Location {
    let lat = 48 + north / 111_195
    let lon = 11 + east / (111_195 * cos(48 * Double.pi / 180))
    return Location(coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon),
                    timestamp: Date(timeIntervalSince1970: 1_790_000_000 + t),
                    horizontalAccuracy: accuracy.map(Distance.init(meters:)),
                    speed: speed.map(Speed.init(metersPerSecond:)))
}

/// Polls `condition` every millisecond until it holds; gives up after `limit` so a broken
/// test fails instead of hanging. The limit is generous on purpose: it bounds a wait on other
/// tasks of the same process, it does not measure anything. Two minutes: beside the suites'
/// synchronous work on the 2-core machine's two pool threads, a manager's first fixes waited
/// 34 s in passing runs, and over 30 s in one of five (2026-12-01), for work that takes 13 ms alone.
func eventually(within limit: Duration = .seconds(120), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return await condition()
}
