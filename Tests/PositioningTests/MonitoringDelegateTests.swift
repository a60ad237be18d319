import Foundation
import Synchronization
import Testing
import GeoCore
import GeoTestSupport
import Monitoring
import Compass
import Positioning

/// Records the visit and heading callbacks; asks for calibration display.
private final class MonitoringDelegate: PositioningDelegate {
    let visits = Mutex<[Visit]>([])
    let headings = Mutex<[Heading]>([])
    let calibrationQuestions = Mutex(0)

    func positioningManager(_ manager: PositioningManager, didVisit visit: Visit) async {
        visits.withLock { $0.append(visit) }
    }
    func positioningManager(_ manager: PositioningManager, didUpdateHeading heading: Heading) async {
        headings.withLock { $0.append(heading) }
    }
    func positioningManagerShouldDisplayHeadingCalibration(_ manager: PositioningManager) async -> Bool {
        calibrationQuestions.withLock { $0 += 1 }
        return true
    }
}

@Test func manager_visitMonitoring_reportsArrivalThenDeparture_alsoWhilePaused() async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    let delegate = MonitoringDelegate()
    await manager.setDelegate(delegate)
    await manager.setConfiguration(.default.unfiltered)
    try await manager.startMonitoringVisits()
    await manager.start()
    #expect(await eventually { source.activeRuns == 1 })
    for t in 0..<400 { source.yield(fix(north: Double(t % 3), t: Double(t))) } // parked: updates pause
    for t in 400..<410 { source.yield(fix(north: Double(t - 399) * 200, t: Double(t))) } // drives off
    #expect(await eventually { delegate.visits.withLock { $0.count == 2 } })
    let visits = delegate.visits.withLock { $0 }
    #expect(visits.first?.isInProgress == true && visits.last?.isInProgress == false)
    #expect(visits.last?.arrivalDate == .distantPast, "parked at the first fix: arrival not observed")
    #expect(visits.last?.departureDate == fix(t: 399).timestamp)
    #expect(await manager.isPaused == false)
    await manager.stop()
}

@Test func manager_heading_resolvesMagneticFromTheWMM_andAsksForCalibration() async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    let delegate = MonitoringDelegate()
    await manager.setDelegate(delegate)
    await manager.setConfiguration(.default.unfiltered)
    await manager.start()
    #expect(await eventually { source.activeRuns == 1 })
    source.yield(fix(t: 0))
    #expect(await eventually { await manager.rawPosition != nil })
    let time = fix(t: 1).timestamp
    await manager.startUpdatingHeading()
    try await manager.updateHeading(Heading(timestamp: time, trueHeading: .degrees(10)))
    try await manager.updateHeading(Heading(timestamp: time, magneticHeading: .degrees(10), sensorStatus: .calibrationAlarm))
    #expect(await eventually { delegate.headings.withLock { $0.count == 2 } })
    let declination = try MagneticModel.wmm2025.field(at: fix(t: 0).coordinate, date: time).declination.degrees
    let headings = delegate.headings.withLock { $0 }
    #expect(abs((headings[0].magneticHeading?.degrees ?? .nan) - (10 - declination)) < 1e-9) // degrees
    #expect(abs((headings[1].trueHeading?.degrees ?? .nan) - (10 + declination)) < 1e-9)
    #expect(delegate.calibrationQuestions.withLock { $0 } == 1, "asked only for the heading whose sensor needs calibration")
    #expect(await manager.isDisplayingHeadingCalibration)
    #expect(await manager.heading?.sensorStatus == .calibrationAlarm)
    await manager.stop()
}

/// Records delivered batches and the ends of deferral.
private final class DeferringDelegate: PositioningDelegate {
    let batches = Mutex<[[Location]]>([])
    let finished = Mutex<[String]>([])

    func positioningManager(_ manager: PositioningManager, didUpdateLocations locations: [Location]) async {
        batches.withLock { $0.append(locations) }
    }
    func positioningManager(_ manager: PositioningManager, didFinishDeferredUpdatesWithError error: PositioningError?) async {
        finished.withLock { $0.append(error.map { "\($0.code)" } ?? "nil") }
    }
}

@Test func manager_deferredUpdates_holdFixesUntilTheDistance_thenOneBatch() async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    let delegate = DeferringDelegate()
    await manager.setDelegate(delegate)
    await manager.setConfiguration(.airborne.unfiltered)
    try await manager.allowDeferredLocationUpdates(untilTraveled: .meters(95), timeout: .seconds(600))
    await manager.start()
    #expect(await eventually { source.activeRuns == 1 })
    for t in 0..<10 { source.yield(fix(north: Double(t) * 10, t: Double(t), speed: 10)) } // 10 m a second
    #expect(await eventually { await manager.rawPosition?.timestamp == fix(t: 9).timestamp })
    #expect(delegate.batches.withLock { $0.isEmpty }, "≈ 90 m: held")
    source.yield(fix(north: 100, t: 10, speed: 10))
    #expect(await eventually { delegate.batches.withLock { $0.first?.count == 11 } }, "≈ 100 m: the 11 fixes in one batch")
    for t in 11..<13 { source.yield(fix(north: Double(t) * 10, t: Double(t), speed: 10)) }
    #expect(await eventually { delegate.batches.withLock { $0.joined().count == 13 } })
    let batches = delegate.batches.withLock { $0 }
    #expect(batches.joined().map(\.timestamp) == (0..<13).map { fix(t: Double($0)).timestamp })
    #expect(delegate.finished.withLock { $0 } == ["nil"])
    await manager.stop()
}

@Test func manager_deferredUpdates_timeoutByFixTime_andCancelOnDisallow() async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    let delegate = DeferringDelegate()
    await manager.setDelegate(delegate)
    await manager.setConfiguration(.airborne.unfiltered)
    try await manager.allowDeferredLocationUpdates(untilTraveled: Distance(meters: .infinity), timeout: .seconds(30))
    await manager.start()
    #expect(await eventually { source.activeRuns == 1 })
    for t in 0..<31 { source.yield(fix(north: Double(t), t: Double(t), speed: 1)) }
    #expect(await eventually { delegate.finished.withLock { $0 == ["nil"] } })
    #expect(delegate.batches.withLock { $0.first?.count } == 31, "30 s from the first held fix")
    try await manager.allowDeferredLocationUpdates(untilTraveled: .meters(1_000), timeout: .seconds(600))
    for t in 31..<34 { source.yield(fix(north: Double(t), t: Double(t), speed: 1)) }
    #expect(await eventually { await manager.rawPosition?.timestamp == fix(t: 33).timestamp })
    await manager.disallowDeferredLocationUpdates()
    #expect(await eventually { delegate.finished.withLock { $0 == ["nil", "deferred updates canceled"] } })
    #expect(delegate.batches.withLock { $0.joined().count } == 34)
    await #expect(throws: PositioningError.self) { try await manager.allowDeferredLocationUpdates(untilTraveled: .meters(0), timeout: .seconds(1)) }
    await #expect(throws: PositioningError.self) { try await manager.allowDeferredLocationUpdates(untilTraveled: .meters(10), timeout: .zero) }
    await manager.stop()
}
