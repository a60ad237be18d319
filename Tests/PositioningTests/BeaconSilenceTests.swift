import Foundation
import Synchronization
import Testing
import GeoCore
import GeoTestSupport
import Monitoring
import BeaconScanning
import Positioning

/// A scanner that delivers what the test sends and then stays open, silent (a beacon switched
/// off: no advertisement arrives, nothing ends).
private final class SilentAfterScanner: BeaconScanner {
    let name = "silent-after"
    private let pair = AsyncThrowingStream.makeStream(of: BeaconSighting.self)
    func sightings() -> AsyncThrowingStream<BeaconSighting, any Error> { pair.stream }
    func send(_ sighting: BeaconSighting) { pair.continuation.yield(sighting) }
}

// Issue 33, item 3 (seed 003): ranging reports go on while nothing is heard; an empty array
// means no beacon in range, and the beacon region is exited after its delay, with no
// advertisement to drive either.
@Test func manager_silentBeacon_emptyReportAndRegionExit_onTheClock() async throws {
    let clock = ManualClock()
    let manager = PositioningManager(source: CustomPositionSource(), clock: clock)
    let seen = Mutex<[String]>([])
    let events = manager.events(bufferingPolicy: .unbounded)
    let collector = Task {
        for await event in events {
            switch event {
            case .beacons(.ranged(let beacons, _)): seen.withLock { $0.append("ranged \(beacons.count)") }
            case .region(.exited): seen.withLock { $0.append("exited") }
            default: break
            }
        }
    }
    defer { collector.cancel() }
    let scanner = SilentAfterScanner()
    await manager.setBeaconScanner(scanner)
    let uuid = try #require(UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
    await manager.startRangingBeacons(satisfying: try BeaconIdentityCondition(uuid: uuid))
    await manager.startMonitoring(for: MonitoredRegion(identifier: "door", condition: .beacon(try BeaconIdentityCondition(uuid: uuid))))
    let t0 = Date(timeIntervalSince1970: 1_784_008_800)
    // Heard every 0.5 s for 4.5 s (the last advertisement at t0 + 4.5 s), then silence.
    for k in 0...9 {
        scanner.send(BeaconSighting(timestamp: t0.addingTimeInterval(Double(k) / 2), address: "C4:7C:8D:6A:3E:01", rssi: -59,
                                    advertisement: .iBeacon(uuid: uuid, major: 1, minor: 2, measuredPower: -59)))
    }
    // The sightings end the intervals at t0 + 1 … 4 s: four reports (the region is decided
    // inside: its first decision, not an entry).
    #expect(await eventually { seen.withLock { $0.filter { $0.hasPrefix("ranged") }.count == 4 } })
    // 40 s pass on the manager's clock with nothing heard.
    clock.advance(by: .seconds(40))
    #expect(await eventually { seen.withLock { $0.contains("exited") && $0.filter { $0.hasPrefix("ranged") }.count >= 40 } })
    let log = seen.withLock { $0 }
    let ranged = log.filter { $0.hasPrefix("ranged") }
    // One report a second (report k at t0 + k + 1 s): the beacon listed until its 30 s expiry,
    // then empty arrays. The first empty one within beaconExitDelay (30 s) + 1 interval of the
    // last advertisement.
    let firstEmpty = try #require(ranged.firstIndex(of: "ranged 0"))
    let emptyAt = Double(firstEmpty + 1)
    #expect(emptyAt - 4.5 <= 30 + 1 && emptyAt - 4.5 > 29, "first empty report at t0 + \(emptyAt) s")
    #expect(ranged[firstEmpty...].allSatisfy { $0 == "ranged 0" })
    // The region is exited right after that report, not before the delay.
    let exit = try #require(log.firstIndex(of: "exited"))
    let reportsBeforeExit = log[..<exit].filter { $0.hasPrefix("ranged") }.count
    #expect(Double(reportsBeforeExit) - 4.5 <= 31 && Double(reportsBeforeExit) - 4.5 >= 30, "exit after the report at t0 + \(reportsBeforeExit) s")
    #expect(log.filter { $0 == "exited" }.count == 1)
}
