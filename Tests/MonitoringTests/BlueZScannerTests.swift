import Foundation
import Synchronization
import Testing
import GeoCore
import GeoTestSupport
import Monitoring
import BeaconScanning
import SystemIO

// BlueZScanner against python3-dbusmock's bluez5 template on a private dbus-daemon: the scanner
// speaks real D-Bus to a process that answers as BlueZ does (ObjectManager, Adapter1, Device1,
// PropertiesChanged). The frames are the specifications' examples (BeaconAdvertisementTests).

/// iBeacon manufacturer data after Apple's company ID 0x004C (Proximity Beacon Specification
/// R1): 02 15, the AirLocate UUID, major 1, minor 2, measured power −59 dBm.
private let iBeaconData = "0215E2C56DB5DFFB48D2B060D0F5A71096E000010002C5"
private let airLocate = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
/// Eddystone-UID service data of 0xFEAA (eddystone-uid/README.md): Tx power −18 dBm at 0 m.
private let eddystoneUIDData = "00EE8B0CA750095477CB3E770000000000010000"

/// What a scan delivered, and how it ended (nil while it runs).
private final class ScanRecord: Sendable {
    private let state = Mutex<(sightings: [BeaconSighting], end: Result<Void, any Error>?)>(([], nil))
    var sightings: [BeaconSighting] { state.withLock { $0.sightings } }
    var end: Result<Void, any Error>? { state.withLock { $0.end } }
    var error: MonitoringError? {
        guard case .failure(let error)? = end else { return nil }
        return error as? MonitoringError
    }

    /// Consumes a scan in a task of its own.
    static func start(_ scanner: any BeaconScanner) -> (ScanRecord, Task<Void, Never>) {
        let record = ScanRecord()
        let task = Task {
            do {
                for try await sighting in scanner.sightings() { record.state.withLock { $0.sightings.append(sighting) } }
                record.state.withLock { $0.end = .success(()) }
            } catch {
                record.state.withLock { $0.end = .failure(error) }
            }
        }
        return (record, task)
    }
}

@Test(.onOwnThread) func bluez_advertisements_becomeSightingsAndRangedBeacons() async throws {
    try await BlueZMock.run { bluez in
        try await bluez.control("add-adapter", "hci0")
        let device = try await bluez.control("add-device", "hci0", "C4:7C:8D:6A:3E:01")
        let scanner = BlueZScanner(adapter: "hci0", busAddress: bluez.address)
        let (record, task) = ScanRecord.start(scanner)
        defer { task.cancel() }
        #expect(try await bluez.until { try await bluez.control("discovering", "hci0") == "true" }, "the scan starts discovery")
        try await bluez.control("advertise", device, "-59", "m", "0x004c", iBeaconData)
        try await bluez.control("appear", "hci0", "C4:7C:8D:6A:3E:02", "-70", "s", "0xfeaa", eddystoneUIDData)
        try await bluez.control("advertise", device, "-65") // the same beacon heard again: only its RSSI changes
        #expect(try await bluez.until { record.sightings.count == 3 }, "\(record.sightings), \(String(describing: record.end))")
        let sightings = record.sightings
        try #require(sightings.count == 3)
        #expect(sightings[0].advertisement == .iBeacon(uuid: airLocate, major: 1, minor: 2, measuredPower: -59))
        #expect(sightings[0].address == "C4:7C:8D:6A:3E:01" && sightings[0].rssi == -59)
        #expect(sightings[1].advertisement.identity == .eddystone(namespace: Array(bytes(eddystoneUIDData)[2..<12]), instance: [0, 0, 0, 0, 0, 1]))
        #expect(sightings[1].address == "C4:7C:8D:6A:3E:02" && sightings[1].rssi == -70)
        #expect(sightings[2].advertisement == sightings[0].advertisement && sightings[2].rssi == -65)

        var ranger = try BeaconRanger()
        sightings.forEach { ranger.record($0) }
        let ranged = ranger.beacons(at: sightings[2].timestamp)
        try #require(ranged.count == 2)
        // Log-distance model, n = 2: iBeacon mean RSSI −62 at −59 dBm @ 1 m → 10^(3/20) m;
        // Eddystone −70 at −18 − 41 = −59 dBm @ 1 m → 10^(11/20) m.
        #expect(ranged[0].identity == .uuid(airLocate, major: 1, minor: 2))
        #expect(abs((ranged[0].distance?.meters ?? 0) - pow(10, 3.0 / 20)) < 1e-9) // metres
        #expect(abs((ranged[1].distance?.meters ?? 0) - pow(10, 11.0 / 20)) < 1e-9)
        #expect(ranged[0].proximity == .near && ranged[1].proximity == .far)

        task.cancel()
        #expect(try await bluez.until { try await bluez.control("discovering", "hci0") == "false" }, "leaving the scan stops discovery")
        #expect(try await bluez.until { record.end != nil })
    }
}

@Test(.onOwnThread) func bluez_malformedFrame_isSkipped_andTheScanGoesOn() async throws {
    try await BlueZMock.run { bluez in
        try await bluez.control("add-adapter", "hci0")
        let device = try await bluez.control("add-device", "hci0", "C4:7C:8D:6A:3E:01")
        let scanner = BlueZScanner(busAddress: bluez.address) // the first adapter
        let (record, task) = ScanRecord.start(scanner)
        defer { task.cancel() }
        #expect(try await bluez.until { try await bluez.control("discovering", "hci0") == "true" })
        try await bluez.control("advertise", device, "-59", "m", "0x004c", String(iBeaconData.dropLast(2))) // 22 bytes, not 23
        try await bluez.control("advertise", device, "-60", "m", "0x004c", iBeaconData)
        #expect(try await bluez.until { record.sightings.count == 1 })
        #expect(record.sightings.first?.rssi == -60)
        #expect(scanner.statistics.malformedFrames == 1 && scanner.statistics.sightings == 1)
        #expect(record.end == nil, "still scanning")
    }
}

@Test(.onOwnThread) func bluez_goingAway_endsTheScanWithAClearError() async throws {
    // Each way a scan can lose BlueZ mid-scan, then each way it cannot start.
    let midScan: [(String, (BlueZMock) async throws -> Void, MonitoringError.Code, String)] = [
        ("adapter removed", { try await $0.control("remove-adapter", "hci0") }, .bluetoothLost, "was removed"),
        ("powered off", { try await $0.control("power-off", "hci0") }, .bluetoothLost, "powered off"),
        ("BlueZ killed", { _ = $0.mock?.kill() }, .bluetoothLost, "BlueZ left the system bus"),
        ("bus killed", { _ = $0.daemon.kill() }, .bluetoothLost, "connection closed"),
    ]
    for (name, breakIt, code, message) in midScan {
        try await BlueZMock.run { bluez in
            try await bluez.control("add-adapter", "hci0")
            let (record, task) = ScanRecord.start(BlueZScanner(adapter: "hci0", busAddress: bluez.address))
            defer { task.cancel() }
            #expect(try await bluez.until { try await bluez.control("discovering", "hci0") == "true" }, "\(name)")
            try await breakIt(bluez)
            #expect(try await bluez.until { record.end != nil }, "\(name): the scan ends")
            #expect(record.error?.code == code, "\(name): \(String(describing: record.end))")
            #expect(record.error?.message.contains(message) == true, "\(name): \(String(describing: record.error))")
            #expect(record.error?.location == "hci0")
        }
    }
    try await BlueZMock.run(withBlueZ: false) { bus in
        let (record, task) = ScanRecord.start(BlueZScanner(busAddress: bus.address))
        defer { task.cancel() }
        let ended = try await bus.until { record.end != nil }
        #expect(ended)
        #expect(record.error?.code == .bluetoothUnavailable && record.error?.message.contains("BlueZ is not running") == true, "\(String(describing: record.end))")
    }
    try await BlueZMock.run { bluez in
        try await bluez.control("add-adapter", "hci0")
        try await bluez.control("deny", "hci0")
        let (record, task) = ScanRecord.start(BlueZScanner(adapter: "hci0", busAddress: bluez.address))
        defer { task.cancel() }
        #expect(try await bluez.until { record.end != nil })
        #expect(record.error?.code == .bluetoothDenied && record.error?.message.contains("org.bluez.Error.NotAuthorized") == true,
                "BlueZ refusing is Bluetooth's authorization denied: \(String(describing: record.end))")
    }
    try await BlueZMock.run { bluez in
        try await bluez.control("add-adapter", "hci0")
        for (adapter, message) in [("hci7", "no adapter 'hci7': BlueZ has hci0"), ("hci0", "powered off")] {
            if adapter == "hci0" { try await bluez.control("power-off", "hci0") }
            let (record, task) = ScanRecord.start(BlueZScanner(adapter: adapter, busAddress: bluez.address))
            defer { task.cancel() }
            #expect(try await bluez.until { record.end != nil })
            #expect(record.error?.code == .bluetoothUnavailable && record.error?.message.contains(message) == true, "\(String(describing: record.end))")
        }
    }
    try await withTemporaryDirectory("nobus") { dir in
        let (record, task) = ScanRecord.start(BlueZScanner(busAddress: "unix:path=\(dir.path)/none"))
        defer { task.cancel() }
        for _ in 0..<600 where record.end == nil { try await Task.sleep(for: .milliseconds(50)) }
        #expect(record.error?.code == .bluetoothUnavailable && record.error?.message.contains("cannot reach the system bus") == true, "\(String(describing: record.end))")
    }
}

/// Hexadecimal text to bytes.
private func bytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex)
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}
