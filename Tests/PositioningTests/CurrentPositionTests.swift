import Foundation
import Testing
import GeoCore
import GeoTestSupport
import Positioning

// Issue 33, item 4 (seed 000): `currentPosition` is the raw position while map matching is off,
// nil while the position is lost or the manager stopped; the Kalman estimate is
// `filteredPosition`. Default preset: the track filter runs.
@Test func currentPosition_isTheRawFix_nilWhenLostOrStopped_filteredKeptApart() async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    #expect(await manager.configuration.trackFilter != nil)
    await manager.start()
    #expect(await eventually { source.activeRuns == 1 })
    // 30 s walking north at 1.4 m/s with ±3 m alternating cross-track error, 5 m accuracy.
    var last = fix(t: 0)
    for t in 0..<30 {
        last = fix(north: 1.4 * Double(t), east: t % 2 == 0 ? 3 : -3, t: Double(t), accuracy: 5, speed: 1.4)
        source.yield(last)
    }
    let lastFix = last
    #expect(await eventually { await manager.rawPosition == lastFix })
    #expect(await manager.currentPosition == lastFix, "the raw fix, unchanged")
    let filtered = try #require(await manager.filteredPosition)
    // The Kalman estimate smooths the ±3 m zigzag: it is not the raw fix.
    #expect(filtered.coordinate.distance(to: lastFix.coordinate).meters > 0.5)
    source.reportLost()
    #expect(await eventually { await manager.isPositionLost })
    #expect(await manager.currentPosition == nil, "lost: no current position")
    #expect(await manager.rawPosition == lastFix, "the last fix is still there by its own name")
    let next = fix(north: 1.4 * 31, t: 31, accuracy: 5, speed: 1.4)
    source.yield(next)
    #expect(await eventually { await manager.currentPosition == next })
    await manager.stop()
    #expect(await manager.currentPosition == nil)
}
