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

/// Waits (yielding) until `condition` holds, failing after `limit` yields so a broken test ends.
func eventually(_ limit: Int = 100_000, _ condition: () async -> Bool) async -> Bool {
    for _ in 0..<limit {
        if await condition() { return true }
        await Task.yield()
    }
    return false
}
