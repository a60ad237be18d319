import Foundation
import Testing
import GeoCore
import GeoTestSupport
import Positioning

/// The updates a default manager with `setUp` applied delivers for `fixes`.
private func delivered(_ fixes: [Location], _ setUp: (PositioningManager) async throws -> Void) async throws -> [Location] {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    try await setUp(manager)
    let events = manager.events(bufferingPolicy: .unbounded)
    let collector = Task {
        var out: [Location] = []
        for await event in events {
            if case .updated(let l) = event { out.append(l) }
            if case .stopped = event { break }
        }
        return out
    }
    await manager.start()
    #expect(await eventually { source.activeRuns == 1 })
    for f in fixes { source.yield(f) }
    source.finish()
    return await collector.value
}

/// 60 s walking north at 1.4 m/s, 5 m accuracy, ±1 m cross-track zigzag.
private let walk = (0..<60).map { fix(north: 1.4 * Double($0), east: $0 % 2 == 0 ? 1 : -1, t: Double($0), accuracy: 5, speed: 1.4) }

// Issue 33, item 6: Core Location's settings on the manager, applied to the default preset's
// filter at start.
@Test func distanceFilter_spacesTheUpdates_minusOneIsNone_infinityIsAnError() async throws {
    let spaced = try await delivered(walk) { try await $0.setDistanceFilter(.meters(20)) }
    #expect(spaced.count >= 2)
    for (a, b) in zip(spaced, spaced.dropFirst()) {
        #expect(a.coordinate.distance(to: b.coordinate).meters >= 20 - 1e-6, "metres between updates")
    }
    // kCLDistanceFilterNone (−1): every fix the filter accepts, as without the setting.
    let none = try await delivered(walk) { try await $0.setDistanceFilter(.distanceFilterNone) }
    let plain = try await delivered(walk) { _ in }
    #expect(none.count == plain.count && none.count > spaced.count * 3)
    let manager = PositioningManager(source: CustomPositionSource(), clock: ManualClock())
    for bad in [Double.infinity, -.infinity, .nan] {
        await #expect(throws: PositioningError.self) { try await manager.setDistanceFilter(.meters(bad)) }
        await #expect(throws: PositioningError.self) { try await manager.setDesiredAccuracy(.meters(bad)) }
    }
    #expect(await manager.distanceFilter == nil, "a refused value changes nothing")
    #expect(await manager.desiredAccuracy == .accuracyBest)
}

@Test func desiredAccuracy_kilometerDeliversCoarseFixes_bestKeepsThePresetLimit() async throws {
    // Cell-tower fixes while driving: 500 m accuracy (beyond the default preset's 100 m limit),
    // one every 10 s, 300 m apart (more than half the accuracy radius, so they count as moves).
    let coarse = (0..<30).map { fix(north: 300 * Double($0), t: 10 * Double($0), accuracy: 500, speed: 30) }
    #expect(try await delivered(coarse) { try await $0.setDesiredAccuracy(.accuracyBest) }.isEmpty)
    let kilometer = try await delivered(coarse) { try await $0.setDesiredAccuracy(.accuracyKilometer) }
    #expect(kilometer.count >= 20, "after the 5 s warm-up: \(kilometer.count) of 30")
}

@Test func activityType_picksThePreset_pausesSettingIsKept() async throws {
    let manager = PositioningManager(source: CustomPositionSource(), clock: ManualClock())
    await manager.setPausesLocationUpdatesAutomatically(false)
    await manager.setActivityType(.fitness)
    #expect(await manager.configuration == .fitness)
    #expect(await manager.pausesLocationUpdatesAutomatically == false)
    #expect(await manager.activityType == .fitness)
    await manager.setActivityType(.other)
    #expect(await manager.configuration == .default)
}
