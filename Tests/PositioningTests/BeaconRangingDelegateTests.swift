import Foundation
import Synchronization
import Testing
import GeoCore
import GeoTestSupport
import Monitoring
import BeaconScanning
import Positioning

/// A scanner whose one scan delivers what the test pushes, then ends as the test says.
private final class PushScanner: BeaconScanner {
    let name = "push"
    private let stream: AsyncThrowingStream<BeaconSighting, any Error>
    private let input: AsyncThrowingStream<BeaconSighting, any Error>.Continuation

    init() { (stream, input) = AsyncThrowingStream.makeStream(of: BeaconSighting.self) }

    func sightings() -> AsyncThrowingStream<BeaconSighting, any Error> { stream }
    func push(_ sighting: BeaconSighting) { input.yield(sighting) }
    func fail(_ error: MonitoringError) { input.finish(throwing: error) }
}

/// Records the beacon and region callbacks.
private final class BeaconRecorder: PositioningDelegate {
    let ranged = Mutex<[[RangedBeacon]]>([])
    let rangingFailures = Mutex<[(BeaconIdentityCondition, MonitoringError)]>([])
    let states = Mutex<[RegionState]>([])
    let regionFailures = Mutex<[String]>([])

    func positioningManager(_ manager: PositioningManager, didRange beacons: [RangedBeacon], satisfying constraint: BeaconIdentityCondition) async {
        ranged.withLock { $0.append(beacons) }
    }
    func positioningManager(_ manager: PositioningManager, rangingBeaconsDidFailFor constraint: BeaconIdentityCondition, withError error: MonitoringError) async {
        rangingFailures.withLock { $0.append((constraint, error)) }
    }
    func positioningManager(_ manager: PositioningManager, didDetermineState state: RegionState, for region: MonitoredRegion) async {
        states.withLock { $0.append(state) }
    }
    func positioningManager(_ manager: PositioningManager, monitoringDidFailFor region: MonitoredRegion?, withError error: MonitoringError) async {
        regionFailures.withLock { $0.append(region?.identifier ?? "all") }
    }
}

@Test func manager_rangesBeacons_decidesBeaconRegions_andReportsTheScannersFailure() async throws {
    let manager = PositioningManager(source: CustomPositionSource(), clock: ManualClock())
    let delegate = BeaconRecorder()
    await manager.setDelegate(delegate)
    let scanner = PushScanner()
    await manager.setBeaconScanner(scanner)
    let airLocate = try #require(UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
    let constraint = try BeaconIdentityCondition(uuid: airLocate)
    await manager.startRangingBeacons(satisfying: constraint)
    await manager.startMonitoring(for: MonitoredRegion(identifier: "door", condition: .beacon(try BeaconIdentityCondition(uuid: airLocate, major: 1))))
    let t0 = Date(timeIntervalSince1970: 1_784_008_800)
    // iBeacon major 1 minor 2, −59 dBm at 1 m, heard at −59 dBm every 0.5 s; an Eddystone-UID
    // beacon the UUID constraint does not match.
    for k in 0..<5 {
        scanner.push(BeaconSighting(timestamp: t0.addingTimeInterval(Double(k) / 2), address: "C4:7C:8D:6A:3E:01", rssi: -59,
                                    advertisement: .iBeacon(uuid: airLocate, major: 1, minor: 2, measuredPower: -59)))
        scanner.push(BeaconSighting(timestamp: t0.addingTimeInterval(Double(k) / 2 + 0.1), address: "C4:7C:8D:6A:3E:02", rssi: -70,
                                    advertisement: .eddystoneUID(namespace: Array(repeating: 1, count: 10), instance: Array(repeating: 2, count: 6), txPowerAt0m: -18)))
    }
    // Sightings at 1.0 s and 2.0 s end the first two one-second intervals: two reports.
    #expect(await eventually { delegate.ranged.withLock { $0.count == 2 } })
    let first = try #require(delegate.ranged.withLock { $0.first })
    try #require(first.count == 1, "only the UUID beacon satisfies the constraint: \(first)")
    #expect(first[0].identity == .uuid(airLocate, major: 1, minor: 2))
    #expect(abs((first[0].distance?.meters ?? 0) - 1) < 1e-9 && first[0].proximity == .near) // metres: RSSI = power at 1 m
    #expect(await eventually { delegate.states.withLock { $0.first == .inside } }, "the beacon region is decided from the sightings")

    scanner.fail(MonitoringError(.bluetoothLost, "the adapter /org/bluez/hci0 was removed", at: "hci0"))
    #expect(await eventually { delegate.rangingFailures.withLock { $0.count == 1 } && delegate.regionFailures.withLock { $0 == ["door"] } })
    let failure = try #require(delegate.rangingFailures.withLock { $0.first })
    #expect(failure.0 == constraint && failure.1.code == .bluetoothLost && failure.1.location == "hci0")
    #expect(await manager.rangedBeaconConstraints.isEmpty, "ranging stopped")
}
