import Foundation
import Synchronization
import Testing
import GeoCore
import GeoTestSupport
import Monitoring
import Positioning

/// Records the region callbacks as short labels.
private final class RegionRecorder: PositioningDelegate {
    let calls = Mutex<[String]>([])
    func positioningManager(_ manager: PositioningManager, didStartMonitoringFor region: MonitoredRegion) async {
        calls.withLock { $0.append("start \(region.identifier)") }
    }
    func positioningManager(_ manager: PositioningManager, didDetermineState state: RegionState, for region: MonitoredRegion) async {
        calls.withLock { $0.append("state \(region.identifier) \(state)") }
    }
    func positioningManager(_ manager: PositioningManager, didEnterRegion region: MonitoredRegion) async {
        calls.withLock { $0.append("enter \(region.identifier)") }
    }
    func positioningManager(_ manager: PositioningManager, didExitRegion region: MonitoredRegion) async {
        calls.withLock { $0.append("exit \(region.identifier)") }
    }
    func positioningManager(_ manager: PositioningManager, monitoringDidFailFor region: MonitoredRegion?, withError error: MonitoringError) async {
        calls.withLock { $0.append("fail \(region?.identifier ?? "-") \(error.code)") }
    }
}

private let t0 = Date(timeIntervalSince1970: 1_790_000_000)
private let centre = Coordinate(uncheckedLatitude: 43.7384, longitude: 7.4246)
private let frame = LocalFrame(origin: centre)

/// A 100 m circle; the device starts 300 m east (outside, decided at 20 s), walks to the centre
/// (entered), then back out (left). Each fix 10 m accuracy, 1 Hz, every fix decisive.
@Test func delegate_hearsStartStateEnterAndExit_withNotifyFlags() async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock(), now: { t0 })
    let recorder = RegionRecorder()
    await manager.setDelegate(recorder)
    let circle = MonitorCondition.circle(try CircularGeographicCondition(center: centre, radius: .meters(100)))
    await manager.startMonitoring(for: MonitoredRegion(identifier: "square", condition: circle))
    await manager.startMonitoring(for: MonitoredRegion(identifier: "quiet", condition: circle, notifyOnEntry: false, notifyOnExit: false))
    await manager.setConfiguration(LiveConfiguration.default.unfiltered, pausesAutomatically: true)
    #expect(await manager.start())
    #expect(await eventually { source.activeRuns == 1 })
    var eastings = Array(repeating: 300.0, count: 25)     // outside
    eastings += Array(repeating: 0.0, count: 25)           // inside
    eastings += Array(repeating: 300.0, count: 25)         // outside again
    for (i, east) in eastings.enumerated() {
        source.yield(Location(coordinate: frame.coordinate(east: east, north: 0), timestamp: t0.addingTimeInterval(Double(i)),
                              horizontalAccuracy: .meters(10)))
    }
    #expect(await eventually { recorder.calls.withLock { $0.filter { $0.hasPrefix("state") }.count } == 6 })
    await manager.requestState(for: MonitoredRegion(identifier: "square", condition: circle))
    #expect(await eventually { recorder.calls.withLock { $0.count } == 11 })
    await manager.stop()
    let calls = recorder.calls.withLock { $0 }
    #expect(calls == [
        "start square", "start quiet",
        "state square outside", "state quiet outside",
        "state square inside", "enter square", "state quiet inside",
        "state square outside", "exit square", "state quiet outside",
        "state square outside",
    ])
}

@Test func delegate_requestStateForAnUnknownRegion_isUnknown() async throws {
    let manager = PositioningManager(source: CustomPositionSource(), clock: ManualClock(), now: { t0 })
    let recorder = RegionRecorder()
    await manager.setDelegate(recorder)
    let circle = MonitorCondition.circle(try CircularGeographicCondition(center: centre, radius: .meters(100)))
    await manager.requestState(for: MonitoredRegion(identifier: "never", condition: circle))
    #expect(await eventually { recorder.calls.withLock { $0 } == ["state never unknown"] })
}
